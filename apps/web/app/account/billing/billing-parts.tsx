import { CardSection } from "@shelf/web-kit/card-section";
import { ListOrEmpty } from "@shelf/web-kit/list-or-empty";
import { getTranslations } from "next-intl/server";
import type { pageCaller } from "../../../src/auth/session";
import { ConfirmButton } from "../../../src/components/confirm-button";
import { RecordTable } from "../../../src/components/record-table";
import { dateFormatter, moneyFormatter } from "../../../src/format";
import { shownName } from "../../../src/names";
import { cancelSubscriptionAction, makeDefaultCardAction, removeCardAction, resumeSubscriptionAction } from "./actions";
import { WithdrawForm } from "./withdraw-form";

type Caller = Awaited<ReturnType<typeof pageCaller>>;
type OrderList = Awaited<ReturnType<Caller["orders"]["list"]>>["orders"];
type SubscriptionList = Awaited<ReturnType<Caller["subscriptions"]["list"]>>["subscriptions"];
type InvoicePage = Awaited<ReturnType<Caller["orders"]["invoices"]>>;
type CardList = Awaited<ReturnType<Caller["orders"]["paymentMethods"]>>["payment_methods"];

/** A button that posts one record's id to its action, for the changes that need no confirmation. */
function IdActionButton({
  action,
  id,
  className,
  label,
}: {
  action: (form: FormData) => void | Promise<void>;
  id: number | string;
  className: string;
  label: string;
}) {
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" className={className}>
        {label}
      </button>
    </form>
  );
}

/** Words and formats every part of the page uses. */
async function billingWords() {
  const [t, date, money] = await Promise.all([getTranslations("billing"), dateFormatter(), moneyFormatter()]);
  return { t, date, money };
}

/**
 * The subscriptions to products (the pass has its own part): each one's dates, next charge and card, to cancel at the
 * period's end or resume.
 */
export async function Subscriptions({ subscriptions, orders }: { subscriptions: SubscriptionList; orders: OrderList }) {
  const { t, date, money } = await billingWords();
  // A subscription names no product: its first order does.
  const productOf = new Map(orders.map((order) => [order.id, order.items[0]?.product_name]));
  return (
    <CardSection id="subscriptions" title={t("subscriptions")}>
      <ListOrEmpty items={subscriptions} empty={t("noSubscriptions")} className="records">
        {(subscription) => (
          <li key={subscription.id} className="record">
            <p>
              <strong>
                {(subscription.order_id !== null && productOf.get(subscription.order_id)) ||
                  subscription.offer_name ||
                  t("subscriptionNumber", { id: subscription.id })}
              </strong>{" "}
              <span className={subscription.cancel_at_period_end ? "badge warn" : "badge"}>
                {subscription.status_label}
              </span>
              {subscription.cancel_at_period_end && <span className="badge warn">{t("endsAtPeriodEnd")}</span>}
            </p>
            <dl className="facts">
              <div>
                <dt>{t("started")}</dt>
                <dd>{date(subscription.starts_at)}</dd>
              </div>
              <div>
                <dt>{subscription.cancel_at_period_end ? t("ends") : t("periodEnds")}</dt>
                <dd>{date(subscription.ends_at)}</dd>
              </div>
              {subscription.next_charge_at && subscription.renewal_amount_cents !== null && (
                <div>
                  <dt>{t("nextCharge")}</dt>
                  <dd>
                    {money(subscription.renewal_amount_cents, subscription.renewal_currency ?? "USD")},{" "}
                    {date(subscription.next_charge_at)}
                  </dd>
                </div>
              )}
              {subscription.payment_method_last4 && (
                <div>
                  <dt>{t("card")}</dt>
                  <dd>
                    {shownName(subscription.payment_method_brand ?? "")} •••• {subscription.payment_method_last4}
                  </dd>
                </div>
              )}
            </dl>
            {subscription.action === "cancel" && (
              <ConfirmButton
                label={t("cancelSubscription")}
                title={t("cancelTitle")}
                body={t("cancelBody", { date: date(subscription.ends_at) })}
                confirmLabel={t("cancelSubscription")}
                cancelLabel={t("keep")}
                action={cancelSubscriptionAction}
                fields={{ id: String(subscription.id) }}
                dialogId={`cancel-${subscription.id}`}
              />
            )}
            {subscription.action === "resume" && (
              <IdActionButton
                action={resumeSubscriptionAction}
                id={subscription.id}
                className="button small"
                label={t("resume")}
              />
            )}
          </li>
        )}
      </ListOrEmpty>
    </CardSection>
  );
}

/**
 * The orders: what each granted, discount and VAT, its invoice and receipt, and a withdrawal while it may be asked for
 * (`withdrawn`: the order whose withdrawal was just asked for).
 */
export async function Orders({ orders, withdrawn }: { orders: OrderList; withdrawn: string | undefined }) {
  const { t, date, money } = await billingWords();
  const [tw, ti] = await Promise.all([getTranslations("withdrawal"), getTranslations("invoiceDocument")]);
  return (
    <CardSection id="orders" title={t("orders")}>
      <ListOrEmpty items={orders} empty={t("noOrders")} className="records">
        {(order) => (
          <li key={order.id} id={`order-${order.id}`} className="record">
            <p>
              <strong>{t("orderNumber", { number: order.number })}</strong>{" "}
              {order.paid_at && <span className="muted small">{date(order.paid_at)}</span>}{" "}
              <span className="badge">{order.status_label}</span>{" "}
              {order.withdrawal_requested_at && <span className="badge warn">{tw("requested")}</span>}
            </p>
            {/* Said where the request was made, so that it is in view when the page comes back to this order. */}
            {order.withdrawal_requested_at && (
              <p role={withdrawn === order.number ? "status" : undefined} className="notice">
                {withdrawn === order.number
                  ? tw("sent", { number: order.number })
                  : tw("requestedOn", { date: date(order.withdrawal_requested_at) })}
              </p>
            )}
            <ul className="order-items">
              {order.items.map((item) => (
                <li key={item.id}>
                  <a href={`/account/products/${item.product_id}`}>{item.product_name}</a>
                  {item.quantity > 1 && ` × ${item.quantity}`} — {money(item.total_cents, order.currency)}
                  {item.entitlements.length > 0 && (
                    <span className="muted small">
                      {" "}
                      (
                      {item.entitlements
                        .map((entitlement) => `${entitlement.grant_type_label}: ${entitlement.access_state_label}`)
                        .join(", ")}
                      )
                    </span>
                  )}
                </li>
              ))}
            </ul>
            <dl className="facts">
              {order.discount_total_cents > 0 && (
                <div>
                  <dt>{t("discount")}</dt>
                  <dd>{money(-order.discount_total_cents, order.currency)}</dd>
                </div>
              )}
              {order.vat_cents !== null && order.supply_cents !== null && (
                <>
                  <div>
                    <dt>{t("supply")}</dt>
                    <dd>{money(order.supply_cents, order.currency)}</dd>
                  </div>
                  <div>
                    <dt>{t("vat")}</dt>
                    <dd>{money(order.vat_cents, order.currency)}</dd>
                  </div>
                </>
              )}
              <div>
                <dt>{t("total")}</dt>
                <dd>{money(order.total_cents, order.currency)}</dd>
              </div>
            </dl>
            <p className="actions-row">
              <a href={`/account/billing/orders/${order.id}/invoice`}>{ti("open")}</a>
              {order.receipt_url && (
                <a href={order.receipt_url} rel="noreferrer">
                  {t("receipt")}
                </a>
              )}
            </p>
            {order.can_withdraw && (
              <details className="withdraw">
                <summary>{t("withdraw")}</summary>
                <WithdrawForm orderId={order.id} />
              </details>
            )}
          </li>
        )}
      </ListOrEmpty>
    </CardSection>
  );
}

/** The invoices a page at a time, as the API pages them (`after`: this page's cursor). */
export async function Invoices({ invoices, after }: { invoices: InvoicePage; after: number | undefined }) {
  const { t, date, money } = await billingWords();
  return (
    <CardSection id="invoices" title={t("invoices")}>
      <RecordTable
        rows={invoices.invoices.length}
        empty={t("noInvoices")}
        headers={[t("invoice"), t("issued"), t("status"), t("total")]}
      >
        {invoices.invoices.map((invoice) => (
          <tr key={invoice.id}>
            <td data-label={t("invoice")}>
              <a href={`/account/billing/invoices/${invoice.id}`}>
                <code>{invoice.number}</code>
              </a>
              {invoice.order_number && (
                <div className="muted small">{t("forOrder", { number: invoice.order_number })}</div>
              )}
            </td>
            <td data-label={t("issued")}>{date(invoice.issued_at)}</td>
            <td data-label={t("status")}>{invoice.status_label}</td>
            <td data-label={t("total")}>
              {money(invoice.total_cents, invoice.currency)}
              {invoice.vat_cents !== null && (
                <div className="muted small">
                  {t("vatIncluded", { vat: money(invoice.vat_cents, invoice.currency) })}
                </div>
              )}
            </td>
          </tr>
        ))}
      </RecordTable>
      <nav aria-label={t("invoicePages")} className="pager">
        {after !== undefined && <a href="/account/billing#invoices">{t("firstPage")}</a>}
        {invoices.next_cursor !== null && (
          <a href={`/account/billing?after=${invoices.next_cursor}#invoices`}>{t("nextPage")}</a>
        )}
      </nav>
    </CardSection>
  );
}

/** The cards on file: make one the default, remove one. */
export async function Cards({ cards }: { cards: CardList }) {
  const t = await getTranslations("billing");
  return (
    <CardSection id="cards" title={t("cards")}>
      <ListOrEmpty items={cards} empty={t("noCards")} className="records">
        {(card) => (
          <li key={card.id}>
            {shownName(card.brand)} {card.masked_number}{" "}
            <span className="muted small">
              {t("expires", { month: String(card.exp_month).padStart(2, "0"), year: card.exp_year })}
            </span>{" "}
            {card.is_default && <span className="badge">{t("default")}</span>}{" "}
            {card.expired && <span className="badge warn">{t("expired")}</span>}
            <div className="inline-form">
              {!card.is_default && (
                <IdActionButton
                  action={makeDefaultCardAction}
                  id={card.id}
                  className="button secondary small"
                  label={t("makeDefault")}
                />
              )}
              <ConfirmButton
                label={t("removeCard")}
                title={t("removeCardTitle", { card: `${shownName(card.brand)} ${card.masked_number}` })}
                body={card.is_default && cards.length > 1 ? t("removeDefaultBody") : t("removeCardBody")}
                confirmLabel={t("removeCard")}
                cancelLabel={t("keepCard")}
                action={removeCardAction}
                fields={{ id: String(card.id) }}
                dialogId={`remove-card-${card.id}`}
              />
            </div>
          </li>
        )}
      </ListOrEmpty>
      <p className="muted small">{t("cardsLead")}</p>
    </CardSection>
  );
}
