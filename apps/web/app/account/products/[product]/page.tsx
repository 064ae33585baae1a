import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../../src/auth/session";
import { contentAssetHref, dateFormatter, typeLabeler } from "../../../../src/format";

type Props = { params: Promise<{ product: string }> };

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("product"))("title") };
}

/** One product of the library: what it is, how it is delivered and set up, and its releases. */
export default async function ProductPage({ params }: Props) {
  const { product: id } = await params;
  if (!/^[1-9]\d{0,9}$/.test(id)) notFound();
  const session = await requireSession(`/account/products/${id}`);
  const caller = await pageCaller(session);
  const item = (await caller.library.get({})).value().items.find((entry) => String(entry.product.id) === id);
  if (!item) notFound();
  const [detail, releases] = await Promise.all([
    caller.products.detail({ product: Number(id) }),
    caller.products.releases({ product: Number(id) }),
  ]);
  const t = await getTranslations("product");
  const date = await dateFormatter();
  const typeLabel = await typeLabeler();
  const manual = detail.manual;
  const progress = item.setup_progress;
  return (
    <article className="stack-large">
      <p>
        <a href="/account">{t("back")}</a>
      </p>
      <header>
        <h1>{item.product.name}</h1>
        <p className="muted">{typeLabel(item.product.type_label)}</p>
        {detail.product.description && <p>{detail.product.description}</p>}
      </header>
      {detail.hero_path && (
        // biome-ignore lint/performance/noImgElement: next/image sets an inline style the CSP refuses, and its optimizer would fetch the file without the reader's session.
        <img
          className="product-hero"
          src={contentAssetHref(item.product.id, detail.hero_path)}
          alt={detail.hero_alt ?? ""}
          width={480}
          height={270}
        />
      )}
      <section className="card">
        <h2>{t("delivery")}</h2>
        <dl className="facts">
          <div>
            <dt>{t("strategy")}</dt>
            <dd>
              <code>{detail.delivery.strategy}</code>
            </dd>
          </div>
          <div>
            <dt>{t("platforms")}</dt>
            <dd>{detail.platforms.length ? detail.platforms.join(", ") : "—"}</dd>
          </div>
          {detail.runtime && (
            <div>
              <dt>{t("runtime")}</dt>
              <dd>{detail.runtime}</dd>
            </div>
          )}
        </dl>
        {progress.total_count > 0 && (
          <div className="setup">
            <label htmlFor="setup">{t("setup", { done: progress.completed_count, total: progress.total_count })}</label>
            <progress id="setup" value={progress.completed_count} max={progress.total_count}>
              {progress.progress_percent}%
            </progress>
          </div>
        )}
      </section>
      {manual && (manual.summary || manual.install_steps.length > 0) && (
        <section className="card">
          <h2>{t("manual")}</h2>
          {manual.summary && <p>{manual.summary}</p>}
          {manual.requirements.length > 0 && (
            <>
              <h3>{t("requirements")}</h3>
              <ul>
                {manual.requirements.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </>
          )}
          {manual.install_steps.length > 0 && (
            <>
              <h3>{t("installSteps")}</h3>
              <ol>
                {manual.install_steps.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ol>
            </>
          )}
        </section>
      )}
      <section className="card">
        <h2>{t("releases")}</h2>
        {releases.releases.length === 0 ? (
          <p className="empty">{t("noReleases")}</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t("version")}</th>
                  <th scope="col">{t("released")}</th>
                </tr>
              </thead>
              <tbody>
                {releases.releases.map((release) => (
                  <tr key={release.id}>
                    <td>
                      <code>{release.version}</code>
                    </td>
                    <td>{date(release.released_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </article>
  );
}
