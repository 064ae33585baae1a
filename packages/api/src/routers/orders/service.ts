import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import type { Caller } from "../../auth/caller";
import { label } from "../../commerce/labels";
import type { CommerceView } from "../../commerce/orders";
import { isoOrNull } from "../../schemas/common";
import type { InvoicesInput } from "./schemas";
import { INVOICE_PAGE } from "./schemas";

const { invoices, orders, paymentMethods } = schema;

/** An invoice row as the API answers it, with its order's number and its status in the reader's language. */
export function toInvoiceData(invoice: typeof invoices.$inferSelect, orderNumber: string | null, view: CommerceView) {
  return {
    id: invoice.id,
    number: invoice.number,
    status: invoice.status,
    status_label: label(view.language, "invoice", invoice.status),
    currency: invoice.currency,
    total_cents: invoice.totalCents,
    supply_cents: invoice.supplyCents,
    vat_cents: invoice.vatCents,
    order_id: invoice.orderId,
    order_number: orderNumber,
    subscription_id: invoice.subscriptionId,
    issued_at: invoice.issuedAt.toISOString(),
    due_at: isoOrNull(invoice.dueAt),
    paid_at: isoOrNull(invoice.paidAt),
  };
}

/**
 * `GET /api/invoices`: keyset pages, newest first. A page ends with the id of its last invoice (`next_cursor`); the
 * next page starts below it, so invoices added meanwhile (always newer, with higher ids) neither shift nor repeat a
 * row. A product key sees the invoices of its product's orders and subscriptions.
 */
export async function listInvoices(db: Database, caller: Caller, view: CommerceView, input: InvoicesInput) {
  const limit = input.limit ?? INVOICE_PAGE.default;
  const scope =
    caller.productId === null
      ? undefined
      : sql`(${invoices.orderId} in (select oi.order_id from order_items oi where oi.product_id = ${caller.productId})
          or ${invoices.subscriptionId} in (select s.id from subscriptions s where s.product_id = ${caller.productId}))`;
  const rows = await db
    .select({ invoice: invoices, orderNumber: orders.number })
    .from(invoices)
    .leftJoin(orders, eq(orders.id, invoices.orderId))
    .where(
      and(
        eq(invoices.accountId, caller.accountId),
        input.status ? eq(invoices.status, input.status) : undefined,
        input.after ? lt(invoices.id, input.after) : undefined,
        scope,
      ),
    )
    .orderBy(desc(invoices.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    invoices: page.map(({ invoice, orderNumber }) => toInvoiceData(invoice, orderNumber, view)),
    next_cursor: rows.length > limit ? (page.at(-1)?.invoice.id ?? null) : null,
    limit,
  };
}

/**
 * `GET /api/payment-methods`: the account's cards, by brand, last four digits and expiry (nothing more is ever
 * stored). They are the account's, not a product's: a product key sees none.
 */
export async function listPaymentMethods(db: Database, caller: Caller) {
  if (caller.productId !== null) return { payment_methods: [] };
  const rows = await db
    .select()
    .from(paymentMethods)
    .where(eq(paymentMethods.accountId, caller.accountId))
    .orderBy(desc(paymentMethods.isDefault), asc(paymentMethods.id));
  const now = new Date();
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
  return {
    payment_methods: rows.map((row) => ({
      id: row.id,
      brand: row.brand,
      last4: row.last4,
      masked_number: `•••• ${row.last4}`,
      exp_month: row.expMonth,
      exp_year: row.expYear,
      expired: row.expYear * 12 + row.expMonth < thisMonth,
      is_default: row.isDefault,
    })),
  };
}
