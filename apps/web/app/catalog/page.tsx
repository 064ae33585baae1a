import { ListOrEmpty } from "@shelf/web-kit/list-or-empty";
import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../src/auth/session";
import { Price } from "../../src/components/price";

export const generateMetadata = titleFrom("catalog", "title");

/**
 * What the seller offers (the data of `GET /api/products`), each with its price and its page: the product's own page
 * for what the person holds, the offer (and where to buy it) for the rest.
 */
export default async function CatalogPage() {
  const session = await requireSession("/catalog");
  const { products } = await (await pageCaller(session)).products.list({});
  const [t, tp] = await Promise.all([getTranslations("catalog"), getTranslations("purchase")]);
  return (
    <section>
      <h1>{t("title")}</h1>
      <p className="muted">{t("lead")}</p>
      <ListOrEmpty items={products} empty={t("empty")} className="cards" label={t("listLabel")}>
        {(product) => (
          <li key={product.id} className="card product-card">
            <h2>
              <a href={`/account/products/${product.id}`}>{product.name}</a>
            </h2>
            {product.entitled && (
              <p className="badges">
                <span className="badge">{t("inLibrary")}</span>
              </p>
            )}
            {product.description && <p>{product.description}</p>}
            <p>
              <Price product={product} />
            </p>
            {!product.entitled && product.purchase_url && (
              <p>
                <a className="button small" href={product.purchase_url} rel="noopener noreferrer">
                  {tp("buyNamed", { name: product.name })}
                </a>
              </p>
            )}
          </li>
        )}
      </ListOrEmpty>
    </section>
  );
}
