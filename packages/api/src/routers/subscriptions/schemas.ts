import { z } from "zod";
import { DateTime } from "../../schemas/common";

/** What the subscription's holder can do next: `cancel`, `resume`, `update_payment_method`, `resubscribe`, `none`. */
export const subscriptionActions = ["cancel", "resume", "update_payment_method", "resubscribe", "none"] as const;

export const SubscriptionData = z
  .object({
    id: z.number().int(),
    status: z.string(),
    status_label: z.string(),
    is_trial: z.boolean(),
    starts_at: DateTime,
    ends_at: DateTime.nullable(),
    cancelled_at: DateTime.nullable(),
    order_id: z.number().int().nullable(),
    order_number: z.string().nullable(),
    can_cancel: z.boolean(),
    cancel_at_period_end: z.boolean(),
    next_charge_at: DateTime.nullable(),
    renewal_amount_cents: z.number().int().nullable(),
    renewal_currency: z.string().nullable(),
    payment_method_brand: z.string().nullable(),
    payment_method_last4: z.string().nullable(),
    is_pass: z.boolean(),
    offer_code: z.string().nullable(),
    offer_name: z.string().nullable(),
    action: z.enum(subscriptionActions),
    estimated_krw_amount: z.number().int().nullable(),
    estimated_krw_exchange_rate: z.string().nullable(),
    estimated_krw_exchange_source: z.string().nullable(),
    estimated_krw_currency: z.string().nullable(),
    update_card_url: z.string().nullable(),
    update_payment_method_url: z.string().nullable(),
  })
  .meta({ id: "SubscriptionData" });
export type SubscriptionData = z.infer<typeof SubscriptionData>;

export const SubscriptionsData = z
  .object({ subscriptions: z.array(SubscriptionData) })
  .meta({ id: "SubscriptionsData" });

export const SubscriptionIdInput = z.object({ id: z.number().int().positive() });

/** A subscription after a person cancelled it at period end or resumed it. */
export const SubscriptionChangeData = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  status: z.string(),
  ends_at: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
});
