import { z } from "zod";
import { DateTime } from "./common";

/** An order and what it granted, as the orders routes answer it and a withdrawal report names it. */
export const EntitlementData = z
  .object({
    id: z.number().int(),
    product_id: z.number().int(),
    source_product_id: z.number().int().nullable(),
    product_detail_url: z.string(),
    order_id: z.number().int(),
    order_item_id: z.number().int(),
    grant_type: z.string(),
    grant_type_label: z.string(),
    /** `active`, `expired` or `revoked`. */
    status: z.string(),
    status_label: z.string(),
    /** `full` (use and updates), `updates_ended`, `expired` or `revoked`. */
    access_state: z.string(),
    access_state_label: z.string(),
    active: z.boolean(),
    source_quantity: z.number().int(),
    access_expires_at: DateTime.nullable(),
    updates_supported_until: DateTime.nullable(),
    granted_at: DateTime.nullable(),
    revoked_at: DateTime.nullable(),
  })
  .meta({ id: "EntitlementData" });
export type EntitlementData = z.infer<typeof EntitlementData>;

export const OrderItemData = z
  .object({
    id: z.number().int(),
    product_id: z.number().int(),
    product_name: z.string(),
    product_url: z.string(),
    list_unit_price_cents: z.number().int(),
    unit_price_cents: z.number().int(),
    quantity: z.number().int(),
    subtotal_cents: z.number().int(),
    discount_total_cents: z.number().int(),
    total_cents: z.number().int(),
    entitlements: z.array(EntitlementData),
  })
  .meta({ id: "OrderItemData" });

export const OrderData = z
  .object({
    id: z.number().int(),
    number: z.string(),
    status: z.string(),
    status_label: z.string(),
    subtotal_cents: z.number().int(),
    discount_total_cents: z.number().int(),
    total_cents: z.number().int(),
    currency: z.string(),
    payment_method: z.string(),
    items: z.array(OrderItemData),
    can_withdraw: z.boolean(),
    /** When it was paid; null while it awaits payment. */
    paid_at: DateTime.nullable(),
    /** When the buyer asked to withdraw from it (once; support then refunds it); null while nobody has. */
    withdrawal_requested_at: DateTime.nullable(),
    receipt_url: z.string().nullable(),
    supply_cents: z.number().int().nullable(),
    vat_cents: z.number().int().nullable(),
    subscription_name: z.string().nullable(),
  })
  .meta({ id: "OrderData" });
export type OrderData = z.infer<typeof OrderData>;
