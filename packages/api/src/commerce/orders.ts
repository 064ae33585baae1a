/**
 * The account's orders as the API answers them, in the reader's language: the orders routes list and show them, a
 * withdrawal (reports) is filed against one, and every commerce answer (orders, subscriptions) takes its view.
 */
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Caller } from "../auth/caller";
import type { BaseContext } from "../context";
import { DomainError } from "../errors";
import { type AnswerLanguage, answerLanguageOf } from "../language";
import { isoOrNull } from "../schemas/common";
import type { EntitlementData, OrderData } from "../schemas/order";
import { qualified } from "../sql-text";
import { label } from "./labels";

const { entitlements, orderItems, orders } = schema;

/**
 * A buyer may withdraw from a purchase (Korean e-commerce law, art. 17) within this long of paying, as long as the
 * digital content has not been used: no device took a seat on, or recorded an install of, one of the order's products
 * since it was paid.
 */
export const WITHDRAWAL_DAYS = 7;

/** What answers of the commerce group need beside the database: where links point, and the reader's language. */
export type CommerceView = { baseUrl: string; language: AnswerLanguage };

/** Links and labels of a commerce answer: the API's base URL, and the reader's language (Korean or English). */
export function commerceView(ctx: Pick<BaseContext, "baseUrl" | "acceptLanguage" | "res">): CommerceView {
  return { baseUrl: ctx.baseUrl, language: answerLanguageOf(ctx) };
}

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
