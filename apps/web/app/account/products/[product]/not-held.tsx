import type { EndedAccessData, ProductApiData } from "@shelf/api/schemas";
import { CardSection } from "@shelf/web-kit/card-section";
import { getTranslations } from "next-intl/server";
import { Price, PurchaseAction } from "../../../../src/components/price";
import { dateFormatter } from "../../../../src/format";
import { ProductArticle } from "./product-parts";

/** A product whose access ended: when, and where to renew it (the seller's page), or whom to ask. */
export async function EndedProduct({ ended }: { ended: EndedAccessData }) {
  const [t, date] = await Promise.all([getTranslations("product"), dateFormatter()]);
  return (
    <ProductArticle
      back={{ href: "/account", label: t("back") }}
      name={ended.product_name}
      beside={
        <p>
          <span className="badge warn">{t("accessEnded")}</span>
        </p>
      }
    >
      <section className="card">
        <h2>{t("license")}</h2>
        <p>{t("accessEndedBody", { date: date(ended.revoked_at ?? ended.access_expires_at) })}</p>
        <PurchaseAction url={ended.purchase_url} label="renew" />
      </section>
    </ProductArticle>
  );
}

/** A product of the catalog the account does not hold: what it is, its price, and where to buy it. */
export async function OfferedProduct({ product }: { product: ProductApiData }) {
  const t = await getTranslations("purchase");
  return (
    <ProductArticle
      back={{ href: "/catalog", label: t("backToCatalog") }}
      name={product.name}
      beside={
        <>
          <p>
            <span className="badge">{t("notHeld")}</span>
          </p>
          {product.description && <p>{product.description}</p>}
        </>
      }
    >
      <CardSection id="buy" title={t("priceTitle")}>
        <p>
          <Price product={product} />
        </p>
        <PurchaseAction url={product.purchase_url} label="buy" />
      </CardSection>
    </ProductArticle>
  );
}
