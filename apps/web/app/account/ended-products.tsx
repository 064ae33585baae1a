import type { EndedAccessData } from "@shelf/api/schemas";
import { getTranslations } from "next-intl/server";
import { dateFormatter } from "../../src/format";

/**
 * The library's products whose access ended (an expired trial, a revoked grant): listed as ended, each with its page
 * and, where the seller sells it, the way to renew.
 */
export async function EndedProducts({ ended }: { ended: EndedAccessData[] }) {
  if (ended.length === 0) return null;
  const [t, tp, date] = await Promise.all([
    getTranslations("libraryEnded"),
    getTranslations("purchase"),
    dateFormatter(),
  ]);
  return (
    <section aria-labelledby="ended" className="ended-products">
      <h2 id="ended">{t("title")}</h2>
      <ul className="cards">
        {ended.map((product) => (
          <li key={product.product_id} className="card product-card">
            <h3>
              <a href={`/account/products/${product.product_id}`}>{product.product_name}</a>
            </h3>
            <p>
              <span className="badge warn">{t("badge")}</span>{" "}
              <span className="muted small">
                {t("since", { date: date(product.revoked_at ?? product.access_expires_at) })}
              </span>
            </p>
            {product.purchase_url && (
              <p>
                <a className="button small" href={product.purchase_url} rel="noopener noreferrer">
                  {tp("renewNamed", { name: product.product_name })}
                </a>
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
