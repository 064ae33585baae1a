import { CardSection } from "@shelf/web-kit/card-section";
import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { dateFormatter } from "../../../src/format";
import { Cards, Invoices, Orders, Subscriptions } from "./billing-parts";

/** Invoices per page: the API's `limit`, its `next_cursor` the next page's `after`. */
const INVOICES_PER_PAGE = 5;

type Props = { searchParams: Promise<{ after?: string; withdrawn?: string }> };

export const generateMetadata = titleFrom("billing", "title");

/**
 * What the account paid and pays: the all-access pass, subscriptions (cancel at period end, resume), orders (what
 * each granted, VAT for KRW, receipts, withdrawal), invoices a page at a time as the API pages them, cards on file.
 */
export default async function BillingPage({ searchParams }: Props) {
  const session = await requireSession("/account/billing");
  const query = await searchParams;
  const after = /^[1-9]\d{0,9}$/.test(query.after ?? "") ? Number(query.after) : undefined;
  const caller = await pageCaller(session);
  const [{ orders }, invoices, { payment_methods: cards }, { subscriptions }, pass] = await Promise.all([
    caller.orders.list({}),
    caller.orders.invoices(after === undefined ? { limit: INVOICES_PER_PAGE } : { limit: INVOICES_PER_PAGE, after }),
    caller.orders.paymentMethods({}),
    caller.subscriptions.list({}),
    caller.license.passCheck({}),
  ]);
  const t = await getTranslations("billing");
  const date = await dateFormatter();
  const productSubscriptions = subscriptions.filter((subscription) => !subscription.is_pass);
  return (
    <article className="stack-large">
      <h1>{t("title")}</h1>
      <CardSection id="pass" title={t("pass")}>
        {pass.has_active_pass ? (
          <p>
            <span className={pass.in_grace_period ? "badge warn" : "badge"}>
              {pass.in_grace_period ? t("passGrace") : t("passActive")}
            </span>{" "}
            {t("passUntil", { tier: pass.tier, date: date(pass.expires_at) })}
          </p>
        ) : (
          <p className="empty">{t("noPass")}</p>
        )}
      </CardSection>
      <Subscriptions subscriptions={productSubscriptions} orders={orders} />
      <Orders orders={orders} withdrawn={query.withdrawn} />
      <Invoices invoices={invoices} after={after} />
      <Cards cards={cards} />
    </article>
  );
}
