import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { cache } from "react";
import { type PageSession, pageCaller, requireSession } from "../../../../src/auth/session";
import { ConfirmButton } from "../../../../src/components/confirm-button";
import { contentAssetHref, dateFormatter, typeLabeler } from "../../../../src/format";
import { refusalOf } from "../../../../src/forms/errors";
import { shownName } from "../../../../src/names";
import { blockProductDevice, recordSetupStep, releaseProductDevice } from "./actions";
import { DownloadList } from "./download-list";
import { EndedProduct, OfferedProduct } from "./not-held";

type Props = { params: Promise<{ product: string }> };

const CHANNELS = ["stable", "beta", "alpha", "dev"] as const;

/**
 * What the signed-in person has of the product: the library's item while their access lasts, otherwise the product's
 * name and how its access ended, otherwise the product as the catalog offers it (published), or nothing (404). Once
 * per render (metadata and page).
 */
const findProduct = cache(async (session: PageSession, id: number) => {
  const caller = await pageCaller(session);
  const item = (await caller.library.get({})).value().items.find((entry) => entry.product.id === id);
  if (item) return { caller, item, ended: null, offered: null };
  const ended = await caller.library.ended({ product: id });
  if (ended) return { caller, item: null, ended, offered: null };
  const offered = await caller.products.get({ product: id }).then(
    ({ product }) => product,
    (error: unknown) => {
      if (refusalOf(error)) return null;
      throw error;
    },
  );
  return offered ? { caller, item: null, ended: null, offered } : null;
});

function productId(raw: string): number | null {
  return /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const t = await getTranslations("product");
  const id = productId((await params).product);
  const session = id === null ? null : await requireSession(`/account/products/${id}`);
  const found = session && id !== null ? await findProduct(session, id) : null;
  const name = found?.item?.product.name ?? found?.ended?.product_name ?? found?.offered?.name;
  return { title: name ? t("titleOf", { name }) : t("title") };
}

/** One product of the library: downloads, license and devices, its MCP server, setup steps and releases. */
export default async function ProductPage({ params }: Props) {
  const id = productId((await params).product);
  if (id === null) notFound();
  const session = await requireSession(`/account/products/${id}`);
  const found = await findProduct(session, id);
  if (!found) notFound();
  const t = await getTranslations("product");
  const strategies = await getTranslations("deliveryStrategies");
  const date = await dateFormatter();
  if (found.ended) return <EndedProduct ended={found.ended} />;
  if (found.offered) return <OfferedProduct product={found.offered} />;
  if (!found.item) notFound();
  const { caller, item } = found;
  const [detail, releases, { license }, plans] = await Promise.all([
    caller.products.detail({ product: id }),
    caller.products.releases({ product: id }),
    caller.license.product({ product: id }),
    Promise.all(
      CHANNELS.map((channel) =>
        caller.products.install({ product: id, channel }).then(
          (plan) => plan.data,
          () => null,
        ),
      ),
    ),
  ]);
  const downloads = plans.filter(
    (plan, at): plan is NonNullable<typeof plan> =>
      plan !== null && plans.findIndex((other) => other?.version === plan.version) === at,
  );
  const locale = await getLocale();
  const typeLabel = await typeLabeler();
  const manual = detail.manual;
  const progress = item.setup_progress;
  const steps = manual?.install_steps ?? [];
  const done = new Set(progress.completed_step_indexes);
  const free = license.device_limit === null ? null : Math.max(0, license.device_limit - license.devices_used);
  const notesOf = (release: (typeof releases.releases)[number]) =>
    (locale === "ko" ? release.notes_ko : release.notes_en) ?? release.notes;
  return (
    <article className="stack-large">
      <p>
        <a href="/account">{t("back")}</a>
      </p>
      <header>
        <h1>{item.product.name}</h1>
        <p className="muted">{typeLabel(item.product.type_label)}</p>
        <p className="badges">
          {!license.licensed && <span className="badge warn">{t(`codes.${license.code}`)}</span>}
          {license.licensed && !license.update_window_open && <span className="badge warn">{t("updatesEnded")}</span>}
        </p>
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
      <section className="card" aria-labelledby="downloads">
        <h2 id="downloads">{t("downloads")}</h2>
        <DownloadList productId={id} plans={downloads} />
        {item.product.install_assets.length > 0 && (
          <>
            <h3>{t("installAssets")}</h3>
            <ul>
              {item.product.install_assets.map((asset) => (
                <li key={asset.path}>
                  <a href={contentAssetHref(item.product.id, asset.path)}>{asset.label}</a>{" "}
                  <span className="muted small">{shownName(asset.platform)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <section className="card" aria-labelledby="license">
        <h2 id="license">{t("license")}</h2>
        <dl className="facts">
          <div>
            <dt>{t("state")}</dt>
            <dd>{t(`codes.${license.code}`)}</dd>
          </div>
          <div>
            <dt>{t("accessUntil")}</dt>
            <dd>{license.access_expires_at ? date(license.access_expires_at) : t("noEnd")}</dd>
          </div>
          <div>
            <dt>{t("updatesUntil")}</dt>
            <dd>{license.updates_supported_until ? date(license.updates_supported_until) : t("noEnd")}</dd>
          </div>
          <div>
            <dt>{t("seats")}</dt>
            <dd>
              {free === null
                ? t("seatsUnlimited", { used: license.devices_used })
                : t("seatsUsed", { used: license.devices_used, free })}
            </dd>
          </div>
        </dl>
        <p className="muted small">{license.update_window_open ? t("updatesCover") : t("updatesCoverEnded")}</p>
        <h3>{t("devices")}</h3>
        {license.activations.length === 0 ? (
          <p className="empty">{t("noDevices")}</p>
        ) : (
          <div className="table-wrap">
            <table className="stacked">
              <thead>
                <tr>
                  <th scope="col">{t("device")}</th>
                  <th scope="col">{t("lastCheck")}</th>
                  <th scope="col">{t("appVersion")}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t("actions")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {license.activations.map(({ device, last_checked_at, app_version }) => (
                  <tr key={device.id}>
                    <td data-label={t("device")}>
                      {device.name ?? t("unnamed")}
                      <div className="muted small">
                        <code>{device.device_id}</code>
                      </div>
                    </td>
                    <td data-label={t("lastCheck")}>{date(last_checked_at, true)}</td>
                    <td data-label={t("appVersion")}>{app_version ?? "—"}</td>
                    <td className="row-actions">
                      <ConfirmButton
                        label={t("release")}
                        title={t("releaseTitle", { name: device.name ?? device.device_id })}
                        body={t("releaseBody")}
                        confirmLabel={t("release")}
                        cancelLabel={t("cancel")}
                        action={releaseProductDevice}
                        fields={{ id: String(device.id), product: String(id) }}
                        dialogId={`release-${device.id}`}
                      />{" "}
                      <ConfirmButton
                        label={t("block")}
                        title={t("blockTitle", { name: device.name ?? device.device_id })}
                        body={t("blockBody")}
                        confirmLabel={t("block")}
                        cancelLabel={t("cancel")}
                        action={blockProductDevice}
                        fields={{ id: String(device.id), product: String(id) }}
                        dialogId={`block-${device.id}`}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {item.mcp_server && (
        <section className="card" aria-labelledby="mcp">
          <h2 id="mcp">{t("mcp")}</h2>
          <p>
            <code>{item.mcp_server.name}</code>{" "}
            <span className={item.mcp_server.enabled ? "badge" : "badge warn"}>
              {item.mcp_server.enabled ? t("enabled") : t("disabled")}
            </span>
          </p>
          <p className="muted small">{t("mcpLead")}</p>
          <ul className="tags">
            {item.mcp_server.tools.map((tool) => (
              <li key={tool.id}>
                <code>{tool.name}</code>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section className="card" aria-labelledby="delivery">
        <h2 id="delivery">{t("delivery")}</h2>
        <dl className="facts">
          <div>
            <dt>{t("strategy")}</dt>
            <dd>
              {strategies.has(detail.delivery.strategy)
                ? strategies(detail.delivery.strategy)
                : detail.delivery.strategy}
            </dd>
          </div>
          <div>
            <dt>{t("platforms")}</dt>
            <dd>{detail.platforms.length ? detail.platforms.map(shownName).join(", ") : "—"}</dd>
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
      {manual && (manual.summary || steps.length > 0) && (
        <section className="card" aria-labelledby="manual">
          <h2 id="manual">{t("manual")}</h2>
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
          {steps.length > 0 && (
            <>
              <h3>{t("installSteps")}</h3>
              <ol className="steps">
                {steps.map((line, index) => (
                  <li key={line} className={done.has(index) ? "step done" : "step"}>
                    <span>{line}</span>
                    <form action={recordSetupStep}>
                      <input type="hidden" name="product" value={id} />
                      <input type="hidden" name="step" value={index} />
                      <input type="hidden" name="done" value={done.has(index) ? "0" : "1"} />
                      <button type="submit" className="button secondary small">
                        {t(done.has(index) ? "untickStep" : "tickStep", { step: index + 1 })}
                      </button>
                    </form>
                  </li>
                ))}
              </ol>
            </>
          )}
        </section>
      )}
      <section className="card" aria-labelledby="releases">
        <h2 id="releases">{t("releases")}</h2>
        {releases.releases.length === 0 ? (
          <p className="empty">{t("noReleases")}</p>
        ) : (
          <ol className="release-list">
            {releases.releases.map((release) => (
              <li key={release.id}>
                <h3>
                  <code>{release.version}</code> <span className="badge">{t(`channels.${release.channel}`)}</span>{" "}
                  <span className="muted small">{date(release.released_at)}</span>
                </h3>
                {notesOf(release) ? (
                  <p className="notes">{notesOf(release)}</p>
                ) : (
                  <p className="muted">{t("noNotes")}</p>
                )}
              </li>
            ))}
          </ol>
        )}
      </section>
    </article>
  );
}
