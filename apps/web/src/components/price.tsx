import { getTranslations } from "next-intl/server";
import { moneyFormatter } from "../format";

type Props = { product: { unit_price_cents: number; list_price_cents: number | null; currency: string } };

/** A product's price in the page's language: free, or the price, after the regular one struck out when it is lower. */
export async function Price({ product }: Props) {
  const [t, money] = await Promise.all([getTranslations("purchase"), moneyFormatter()]);
  if (product.unit_price_cents === 0) return <span className="price">{t("free")}</span>;
  const discounted = product.list_price_cents !== null && product.list_price_cents > product.unit_price_cents;
  return (
    <span className="price">
      {discounted && (
        <>
          <span className="visually-hidden">{t("regularPrice")}</span>
          <s>{money(product.list_price_cents as number, product.currency)}</s>{" "}
        </>
      )}
      <strong>{money(product.unit_price_cents, product.currency)}</strong>
    </span>
  );
}

/**
 * The seller's page where the product is bought or renewed, as the page's main action; when the seller has named none,
 * a sentence that says whom to ask instead of a button that leads nowhere.
 */
export async function PurchaseAction({ url, label }: { url: string | null; label: "buy" | "renew" }) {
  const t = await getTranslations("purchase");
  if (!url) return <p className="muted">{t(label === "buy" ? "noBuy" : "noRenew")}</p>;
  return (
    <p>
      <a className="button" href={url} rel="noopener noreferrer">
        {t(label)}
      </a>{" "}
      <span className="muted small">{t("atSeller")}</span>
    </p>
  );
}
