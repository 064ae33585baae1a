import { invoiceStatuses } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime, IdParam } from "../../schemas/common";

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

export const OrdersData = z.object({ orders: z.array(OrderData) }).meta({ id: "OrdersData" });
export const OrderShowData = z.object({ order: OrderData }).meta({ id: "OrderShowData" });

/** Page sizes of the invoice list. */
export const INVOICE_PAGE = { default: 20, max: 100 } as const;

export const InvoicesInput = z.object({
  status: z.enum(invoiceStatuses).optional(),
  limit: z.number().int().min(1).max(INVOICE_PAGE.max).optional(),
  /** The `next_cursor` of the page before: the id of its last invoice. */
  after: IdParam.optional(),
});
export type InvoicesInput = z.infer<typeof InvoicesInput>;

export const InvoiceData = z
  .object({
    id: z.number().int(),
    number: z.string(),
    status: z.enum(invoiceStatuses),
    status_label: z.string(),
    currency: z.string(),
    total_cents: z.number().int(),
    supply_cents: z.number().int().nullable(),
    vat_cents: z.number().int().nullable(),
    order_id: z.number().int().nullable(),
    order_number: z.string().nullable(),
    subscription_id: z.number().int().nullable(),
    issued_at: DateTime,
    due_at: DateTime.nullable(),
    paid_at: DateTime.nullable(),
  })
  .meta({ id: "InvoiceData" });

export const InvoicesData = z
  .object({
    invoices: z.array(InvoiceData),
    /** Pass as `after` for the next page; null on the last page. */
    next_cursor: z.number().int().nullable(),
    limit: z.number().int(),
  })
  .meta({ id: "InvoicesData" });

export const PaymentMethodData = z
  .object({
    id: z.number().int(),
    brand: z.string(),
    last4: z.string().regex(/^[0-9]{4}$/),
    /** The last four digits as people see them: `•••• 4242`. */
    masked_number: z.string(),
    exp_month: z.number().int(),
    exp_year: z.number().int(),
    expired: z.boolean(),
    is_default: z.boolean(),
  })
  .meta({ id: "PaymentMethodData" });

export const PaymentMethodsData = z
  .object({ payment_methods: z.array(PaymentMethodData) })
  .meta({ id: "PaymentMethodsData" });
