import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import type { Caller } from "../../auth/caller";
import { DomainError } from "../../errors";
import type { AnswerLanguage } from "../../language";
import { isoOrNull } from "../../schemas/common";
import { qualified } from "../../sql-text";
import { label } from "./labels";
import type { EntitlementData, InvoicesInput, OrderData } from "./schemas";
import { INVOICE_PAGE } from "./schemas";

const { entitlements, invoices, orderItems, orders, paymentMethods } = schema;

/**
 * A buyer may withdraw from a purchase (Korean e-commerce law, art. 17) within this long of paying, as long as the
 * digital content has not been used: no device took a seat on, or recorded an install of, one of the order's products
 * since it was paid.
 */
export const WITHDRAWAL_DAYS = 7;

/** What answers of the commerce group need beside the database: where links point, and the reader's language. */
export type CommerceView = { baseUrl: string; language: AnswerLanguage };

type EntitlementRow = typeof entitlements.$inferSelect;

/** An entitlement's state now: usable with updates, usable without, over, or taken back. */
export function entitlementState(row: EntitlementRow, now = new Date()) {
  const status = row.revokedAt ? "revoked" : row.accessExpiresAt && row.accessExpiresAt <= now ? "expired" : "active";
  const access =
    status !== "active"
      ? status
      : row.updatesSupportedUntil && row.updatesSupportedUntil <= now
        ? "updates_ended"
        : "full";
  return { status, access };
}

function toEntitlementData(row: EntitlementRow, view: CommerceView): EntitlementData {
  const { status, access } = entitlementState(row);
  return {
    id: row.id,
    product_id: row.productId,
    source_product_id: row.sourceProductId,
    product_detail_url: `${view.baseUrl}/api/products/${row.productId}/detail`,
    order_id: row.orderId as number,
    order_item_id: row.orderItemId as number,
    grant_type: row.grantType,
    grant_type_label: label(view.language, "grant", row.grantType),
    status,
    status_label: label(view.language, "entitlement", status),
    access_state: access,
    access_state_label: label(view.language, "access", access),
    active: status === "active",
    source_quantity: row.sourceQuantity,
    access_expires_at: isoOrNull(row.accessExpiresAt),
    updates_supported_until: isoOrNull(row.updatesSupportedUntil),
    granted_at: isoOrNull(row.grantedAt),
    revoked_at: isoOrNull(row.revokedAt),
  };
}

/** Orders a product key may see: those with an item of its product. */
function orderScope(caller: Caller) {
  if (caller.productId === null) return undefined;
  return sql`exists (select 1 from order_items oi where oi.order_id = ${qualified(orders.id)} and oi.product_id = ${caller.productId})`;
}

/** Whether a device took a seat on, or recorded an install of, one of the order's products since it was paid. */
const USED_SINCE_PAID = sql<boolean>`exists (
  select 1 from order_items oi where oi.order_id = ${qualified(orders.id)} and (
    exists (select 1 from device_activations da where da.account_id = ${qualified(orders.accountId)}
      and da.product_id = oi.product_id and da.activated_at >= ${qualified(orders.paidAt)})
    or exists (select 1 from device_installs di where di.account_id = ${qualified(orders.accountId)}
      and di.product_id = oi.product_id and di.created_at >= ${qualified(orders.paidAt)})))`;

async function loadOrders(db: Database, caller: Caller, view: CommerceView, only?: number): Promise<OrderData[]> {
  const rows = await db.query.orders.findMany({
    where: and(
      eq(orders.accountId, caller.accountId),
      only === undefined ? undefined : eq(orders.id, only),
      orderScope(caller),
    ),
    orderBy: desc(orders.id),
    extras: { used: USED_SINCE_PAID.as("used") },
    with: {
      items: {
        orderBy: asc(orderItems.id),
        with: { entitlements: { orderBy: asc(entitlements.id) } },
      },
      subscription: { with: { product: { columns: { name: true } } } },
    },
  });
  const now = Date.now();
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    status: row.status,
    status_label: label(view.language, "order", row.status),
    subtotal_cents: row.subtotalCents,
    discount_total_cents: row.discountTotalCents,
    total_cents: row.totalCents,
    currency: row.currency,
    payment_method: row.paymentMethod,
    items: row.items.map((item) => ({
      id: item.id,
      product_id: item.productId,
      product_name: item.productName,
      product_url: `${view.baseUrl}/api/products/${item.productId}`,
      list_unit_price_cents: item.listUnitPriceCents,
      unit_price_cents: item.unitPriceCents,
      quantity: item.quantity,
      subtotal_cents: item.subtotalCents,
      discount_total_cents: item.discountTotalCents,
      total_cents: item.totalCents,
      entitlements: item.entitlements
        .filter((entitlement) => entitlement.accountId === caller.accountId)
        .map((entitlement) => toEntitlementData(entitlement, view)),
    })),
    can_withdraw:
      row.status === "paid" &&
      row.withdrawalRequestedAt === null &&
      row.paidAt !== null &&
      now - row.paidAt.getTime() <= WITHDRAWAL_DAYS * 86_400_000 &&
      !row.used,
    paid_at: isoOrNull(row.paidAt),
    withdrawal_requested_at: isoOrNull(row.withdrawalRequestedAt),
    receipt_url: row.receiptUrl,
    supply_cents: row.supplyCents,
    vat_cents: row.vatCents,
    subscription_name: row.subscription?.product?.name ?? (row.subscription?.isPass ? "All-access pass" : null),
  }));
}

/** `GET /api/orders`: the account's orders, newest first, with their items and what each granted. */
export async function listOrders(db: Database, caller: Caller, view: CommerceView) {
  return { orders: await loadOrders(db, caller, view) };
}

/** `GET /api/orders/{order}`: one order of the account; any other is `order_not_found`, as a missing one is. */
export async function getOrder(db: Database, caller: Caller, view: CommerceView, orderId: number) {
  const [order] = await loadOrders(db, caller, view, orderId);
  if (!order) throw new DomainError("order_not_found");
  return { order };
}

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
