import { invoiceStatuses } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime, IdParam } from "../../schemas/common";
import { OrderData } from "../../schemas/order";

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
