import { ListOrEmpty } from "@shelf/web-kit/list-or-empty";
import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../src/auth/session";
import { contentAssetHref, dateFormatter, typeLabeler } from "../../src/format";
import { EndedProducts } from "./ended-products";

export const generateMetadata = titleFrom("library", "title");

/**
 * The account home: the library, as `GET /api/library` answers it, with each product's update window; then the
 * products whose access ended.
 */
export default async function LibraryPage() {
  const session = await requireSession("/account");
  const caller = await pageCaller(session);
  const [library, entitlements, ended] = await Promise.all([
    caller.library.get({}),
    caller.device.entitlements({}),
    caller.library.endedAll(),
  ]);
  const items = library.value().items;
  const windows = new Map(entitlements.products.map((product) => [product.id, product]));
  const t = await getTranslations("library");
  const date = await dateFormatter();
  const typeLabel = await typeLabeler();
  return (
    <section>
      <h1>{t("title")}</h1>
      <p className="muted">{t("lead", { name: session.name ?? session.email })}</p>
      <ListOrEmpty items={items} empty={t("empty")} className="cards" label={t("listLabel")}>
        {(item) => {
          const window = windows.get(item.product.id);
          const progress = item.setup_progress;
          return (
            <li key={item.product.id} className="card product-card">
              {item.hero_path && (
                // The card's heading names the product: the picture adds nothing a screen reader should repeat.
                // biome-ignore lint/performance/noImgElement: next/image sets an inline style the CSP refuses, and its optimizer would fetch the file without the reader's session.
                <img
                  className="card-image"
                  src={contentAssetHref(item.product.id, item.hero_path)}
                  alt=""
                  width={480}
                  height={270}
                />
              )}
              <h2>
                <a href={`/account/products/${item.product.id}`}>{item.product.name}</a>
              </h2>
              <p className="muted">
                {typeLabel(item.product.type_label)} · {t(`source.${sourceKey(item.access_source)}`)}
              </p>
              {item.product.description && <p>{item.product.description}</p>}
              <dl className="facts">
                <div>
                  <dt>{t("updatesUntil")}</dt>
                  <dd>{window?.updates_supported_until ? date(window.updates_supported_until) : t("noLimit")}</dd>
                </div>
                <div>
                  <dt>{t("accessUntil")}</dt>
                  <dd>{window?.access_expires_at ? date(window.access_expires_at) : t("noLimit")}</dd>
                </div>
              </dl>
              {progress.total_count > 0 && (
                <div className="setup">
                  <label htmlFor={`setup-${item.product.id}`}>
                    {t("setup", { done: progress.completed_count, total: progress.total_count })}
                  </label>
                  <progress id={`setup-${item.product.id}`} value={progress.completed_count} max={progress.total_count}>
                    {progress.progress_percent}%
                  </progress>
                </div>
              )}
            </li>
          );
        }}
      </ListOrEmpty>
      <EndedProducts ended={ended} />
    </section>
  );
}

/** The access sources the pages name; any other shows as "other". */
function sourceKey(source: string): string {
  return ["purchase", "grant", "bundle", "subscription", "trial"].includes(source) ? source : "other";
}
