import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Caller } from "../../auth/caller";
import { label } from "../../commerce/labels";
import { type CommerceView, getOrder } from "../../commerce/orders";
import { DomainError } from "../../errors";
import { InvoiceData } from "./schemas";
import { toInvoiceData } from "./service";

const { accounts, invoices, orders, products, subscriptions } = schema;

/**
 * One line of an invoice: what was sold, how many, at what price, in minor units of the invoice's currency. Its
 * amount is the quantity at the unit price, before the line's discount: the lines' amounts less the discounts are
 * the total, as the document shows them.
 */
export const InvoiceLineData = z.object({
  name: z.string(),
  quantity: z.number().int(),
  unit_price_cents: z.number().int(),
  amount_cents: z.number().int(),
  discount_cents: z.number().int(),
});

/** What an invoice's printable page and PDF show, besides the seller's disclosure (configuration). */
export const InvoiceDocumentData = z.object({
  invoice: InvoiceData,
  buyer: z.object({ name: z.string().nullable(), email: z.string() }),
  lines: z.array(InvoiceLineData),
  payment_method: z.string().nullable(),
});
export type InvoiceDocumentData = z.infer<typeof InvoiceDocumentData>;

/**
 * An invoice of the caller's account as a document: its order's items (or, for a renewal without an order, the
 * subscription it charged for), the buyer, totals and VAT. Another account's invoice is not found, as a missing one.
 */
export async function invoiceDocument(
  db: Database,
  caller: Caller,
  view: CommerceView,
  invoiceId: number,
): Promise<InvoiceDocumentData> {
  const [row] = await db
    .select({
      invoice: invoices,
      orderNumber: orders.number,
      name: accounts.name,
      email: accounts.email,
      subscriptionName: products.name,
      isPass: subscriptions.isPass,
    })
    .from(invoices)
    .innerJoin(accounts, eq(accounts.id, invoices.accountId))
    .leftJoin(orders, eq(orders.id, invoices.orderId))
    .leftJoin(subscriptions, eq(subscriptions.id, invoices.subscriptionId))
    .leftJoin(products, eq(products.id, subscriptions.productId))
    .where(and(eq(invoices.id, invoiceId), eq(invoices.accountId, caller.accountId)));
  if (!row) throw new DomainError("not_found", "Invoice not found.");
  const { invoice } = row;
  const order = invoice.orderId === null ? null : (await getOrder(db, caller, view, invoice.orderId)).order;
  const lines = order
    ? order.items.map((item) => ({
        name: item.product_name,
        quantity: item.quantity,
        unit_price_cents: item.unit_price_cents,
        amount_cents: item.subtotal_cents,
        discount_cents: item.discount_total_cents,
      }))
    : [
        {
          name: row.subscriptionName ?? (row.isPass ? label(view.language, "pass", "name") : invoice.number),
          quantity: 1,
          unit_price_cents: invoice.totalCents,
          amount_cents: invoice.totalCents,
          discount_cents: 0,
        },
      ];
  return {
    invoice: toInvoiceData(invoice, row.orderNumber, view),
    buyer: { name: row.name, email: row.email },
    lines,
    payment_method: order?.payment_method ?? null,
  };
}

/** The invoice an order of the caller's account was billed on (an order's printable page is its invoice's). */
export async function orderInvoiceId(db: Database, caller: Caller, orderId: number): Promise<{ invoice_id: number }> {
  const [row] = await db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.orderId, orderId), eq(invoices.accountId, caller.accountId)))
    .orderBy(asc(invoices.id))
    .limit(1);
  if (!row) throw new DomainError("not_found", "This order has no invoice.");
  return { invoice_id: row.id };
}
