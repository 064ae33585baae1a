import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, desc, eq } from "drizzle-orm";
import type { Caller } from "../../auth/caller";
import { label } from "../../commerce/labels";
import { minorDigits } from "../../commerce/money";
import type { CommerceView } from "../../commerce/orders";
import type { SubscriptionData } from "./schemas";

const { exchangeRates, orders, paymentMethods, subscriptions } = schema;

type SubscriptionRow = typeof subscriptions.$inferSelect;

const RUNNING = new Set(["active", "trialing", "past_due"]);

/**
 * A subscription's state now, derived from what is stored so that every field agrees: one whose period ended is
 * `expired` whatever was stored; one that runs and renews can be cancelled (at the end of its period) and says when it
 * charges next; one cancelled at period end can be resumed until it ends.
 */
export function subscriptionState(row: SubscriptionRow, now = new Date()) {
  const ended = row.endsAt !== null && row.endsAt <= now;
  const status = RUNNING.has(row.status) && ended ? "expired" : row.status;
  const running = RUNNING.has(status);
  const renews = running && row.renewalAmountCents !== null;
  const canCancel = renews && !row.cancelAtPeriodEnd;
  const action: SubscriptionData["action"] = !running
    ? "resubscribe"
    : status === "past_due"
      ? "update_payment_method"
      : row.cancelAtPeriodEnd
        ? "resume"
        : canCancel
          ? "cancel"
          : "none";
  return { status, renews, canCancel, action, nextChargeAt: canCancel ? row.endsAt : null };
}

function subscriptionScope(caller: Caller) {
  return caller.productId === null ? undefined : eq(subscriptions.productId, caller.productId);
}

/** `GET /api/subscriptions`: the account's subscriptions (a product key: its product's), newest first. */
export async function listSubscriptions(db: Database, caller: Caller, view: CommerceView) {
  const [rows, rates] = await Promise.all([
    db
      .select({ subscription: subscriptions, orderNumber: orders.number, card: paymentMethods })
      .from(subscriptions)
      .leftJoin(orders, eq(orders.id, subscriptions.orderId))
      .leftJoin(paymentMethods, eq(paymentMethods.id, subscriptions.paymentMethodId))
      .where(and(eq(subscriptions.accountId, caller.accountId), subscriptionScope(caller)))
      .orderBy(desc(subscriptions.id)),
    db.select().from(exchangeRates),
  ]);
  const rateOf = new Map(rates.map((rate) => [rate.currency, rate]));
  return {
    subscriptions: rows.map(({ subscription: row, orderNumber, card }): SubscriptionData => {
      const state = subscriptionState(row);
      const rate = row.renewalCurrency && row.renewalCurrency !== "KRW" ? rateOf.get(row.renewalCurrency) : undefined;
      const estimate =
        rate && row.renewalAmountCents !== null && row.renewalCurrency
          ? Math.round((row.renewalAmountCents / 10 ** minorDigits(row.renewalCurrency)) * Number(rate.krwPerUnit))
          : null;
      const manage = state.renews ? `${view.baseUrl}/account/subscriptions/${row.id}/payment-method` : null;
      return {
        id: row.id,
        status: state.status,
        status_label: label(view.language, "subscription", state.status),
        is_trial: row.isTrial,
        starts_at: row.startsAt.toISOString(),
        ends_at: row.endsAt?.toISOString() ?? null,
        cancelled_at: row.cancelledAt?.toISOString() ?? null,
        order_id: row.orderId,
        order_number: orderNumber,
        can_cancel: state.canCancel,
        cancel_at_period_end: row.cancelAtPeriodEnd,
        next_charge_at: state.nextChargeAt?.toISOString() ?? null,
        renewal_amount_cents: row.renewalAmountCents,
        renewal_currency: row.renewalCurrency,
        payment_method_brand: card?.brand ?? null,
        payment_method_last4: card?.last4 ?? null,
        is_pass: row.isPass,
        offer_code: row.offerCode,
        offer_name: row.offerName,
        action: state.action,
        estimated_krw_amount: estimate,
        estimated_krw_exchange_rate: estimate === null ? null : (rate?.krwPerUnit ?? null),
        estimated_krw_exchange_source: estimate === null ? null : (rate?.source ?? null),
        estimated_krw_currency: estimate === null ? null : "KRW",
        update_card_url: manage,
        update_payment_method_url: manage,
      };
    }),
  };
}
