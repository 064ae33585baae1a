import { addPaymentMethod, createInvoice, createOrder } from "@shelf/api/commerce/order-admin";
import { createSubscription } from "@shelf/api/routers/subscriptions/admin-service";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, sql } from "drizzle-orm";
import { DEMO_PASS, DEMO_UPDATE_WINDOW_END, DEMO_UPDATE_WINDOW_GRANTED, demoProducts } from "./catalog";
import { DAY_MS, SEED_LOCK_ID, type Transaction } from "./seeding";

/* What the demo account has paid for: its all-access pass, and its orders, invoices and subscription. */

const { entitlements, invoices, orders, subscriptions } = schema;

/** The demo account's all-access pass, granted once (the first seed's date decides when it ends). */
export async function ensureDemoPass(db: Database, accountId: number) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    const [existing] = await tx
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.isPass, true)));
    if (existing) return;
    const endsAt = new Date();
    endsAt.setUTCFullYear(endsAt.getUTCFullYear() + DEMO_PASS.years);
    await tx.insert(subscriptions).values({
      accountId,
      isPass: true,
      tier: DEMO_PASS.tier,
      features: [...DEMO_PASS.features],
      allowedApps: [...DEMO_PASS.allowedApps],
      graceDays: DEMO_PASS.graceDays,
      endsAt,
    });
  });
}

/** The product the demo account subscribes to, by name. */
const DEMO_SUBSCRIBED = "Release Notes Writer";

/**
 * When the demo account bought each product it holds by purchase, in days before the seed, newest first: the newest
 * three days ago, so that its order can still be withdrawn from. The one whose update window is over was bought
 * before that window closed.
 */
const DEMO_PURCHASE_DAYS = [3, 38, 75, 130, 200];
/** A few invoices more (renewals paid before), so that the invoice list has pages: amount and days ago. */
const DEMO_PAST_INVOICES = [
  { totalCents: 2900, days: 250 },
  { totalCents: 1500, days: 170 },
  { totalCents: 900, days: 100 },
];

/**
 * The demo account's billing, once: a card on file, an order for each product it holds by purchase (its invoice, and
 * the purchase it granted), a monthly subscription that renews, and a few invoices more, spread over the months
 * before, oldest first (ids then follow the dates). All through the services the operator CLI uses, in one
 * transaction under the seed lock; only the dates are set afterwards.
 */
export async function ensureDemoBilling(db: Database, accountId: number, productIds: number[]) {
  const idOf = (name: string) => productIds[demoProducts.findIndex((product) => product.name === name)] as number;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    const [existing] = await tx.select({ id: orders.id }).from(orders).where(eq(orders.accountId, accountId)).limit(1);
    if (existing) return;
    // The services open their own transactions; inside this one they become savepoints.
    const within = tx as unknown as Database;
    await addPaymentMethod(within, { accountId, brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 });
    const now = Date.now();
    const bought = demoProducts.filter((product) => product.entitlement?.grantType === "purchase");
    const days = [...DEMO_PURCHASE_DAYS];
    const timeline = [
      ...bought.map((product) => ({
        at:
          product.entitlement?.state === "window-over"
            ? new Date(DEMO_UPDATE_WINDOW_GRANTED)
            : new Date(now - (days.shift() ?? 1) * DAY_MS),
        product,
      })),
      ...DEMO_PAST_INVOICES.map(({ totalCents, days: ago }) => ({ at: new Date(now - ago * DAY_MS), totalCents })),
    ].sort((a, b) => a.at.getTime() - b.at.getTime());
    for (const event of timeline) {
      if ("product" in event) {
        const order = await createOrder(tx, { accountId, productId: idOf(event.product.name) });
        await backdate(tx, { orderId: order.id }, event.at, event.product.entitlement?.state === "window-over");
      } else {
        const invoice = await createInvoice(within, {
          accountId,
          totalCents: event.totalCents,
          currency: "USD",
          status: "paid",
        });
        await backdate(tx, { invoiceId: invoice.id }, event.at, false);
      }
    }
    await createSubscription(within, { accountId, productId: idOf(DEMO_SUBSCRIBED) });
  });
}

/**
 * Dates an order (its invoice and what it granted) or an invoice as paid at `at`, its number's year with it; a purchase
 * whose update window is over gets that window's end.
 */
async function backdate(
  tx: Transaction,
  of: { orderId: number } | { invoiceId: number },
  at: Date,
  windowOver: boolean,
) {
  const year = `-${at.getUTCFullYear()}-`;
  if ("orderId" in of) {
    await tx
      .update(orders)
      .set({ createdAt: at, paidAt: at, number: sql`regexp_replace(${orders.number}, '-[0-9]{4}-', ${year})` })
      .where(eq(orders.id, of.orderId));
    await tx
      .update(entitlements)
      .set({ grantedAt: at, ...(windowOver ? { updatesSupportedUntil: new Date(DEMO_UPDATE_WINDOW_END) } : {}) })
      .where(eq(entitlements.orderId, of.orderId));
  }
  await tx
    .update(invoices)
    .set({ issuedAt: at, paidAt: at, number: sql`regexp_replace(${invoices.number}, '-[0-9]{4}-', ${year})` })
    .where("orderId" in of ? eq(invoices.orderId, of.orderId) : eq(invoices.id, of.invoiceId));
}
