import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { Currency, createOrder } from "../../commerce/order-admin";
import { DomainError, parseInput, ValidationError } from "../../errors";
import { hasControlCharacter } from "../../schemas/common";

const { accounts, entitlements, exchangeRates, paymentMethods, products, subscriptions } = schema;

const Label = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((text) => !hasControlCharacter(text), { message: "must be printable text" });

export const GrantPassInput = z.object({
  accountId: z.number().int().positive(),
  until: z.date(),
  graceDays: z.number().int().min(0).max(365).default(7),
  tier: Label.default("all-access"),
  features: z.array(Label).max(100).default([]),
  /** Bundle ids or product slugs the pass opens; `*` for every app. */
  apps: z.array(Label).max(500).default(["*"]),
});
export type GrantPassInput = z.input<typeof GrantPassInput>;

export type SubscriptionRecord = {
  id: number;
  account_id: number;
  is_pass: boolean;
  status: string;
  tier: string | null;
  features: string[];
  allowed_apps: string[];
  starts_at: string;
  ends_at: string | null;
  grace_days: number;
};

function toSubscriptionRecord(row: typeof subscriptions.$inferSelect): SubscriptionRecord {
  return {
    id: row.id,
    account_id: row.accountId,
    is_pass: row.isPass,
    status: row.status,
    tier: row.tier,
    features: row.features,
    allowed_apps: row.allowedApps,
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt?.toISOString() ?? null,
    grace_days: row.graceDays,
  };
}

/** `pass:grant`: an all-access pass from now until `until`, working `graceDays` longer if it lapses. */
export async function grantPass(db: Database, rawInput: GrantPassInput): Promise<SubscriptionRecord> {
  const input = parseInput(GrantPassInput, rawInput);
  if (input.until.getTime() <= Date.now()) throw new ValidationError({ until: ["must be in the future"] });
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
  if (!account) throw new DomainError("not_found", "Account not found.");
  const [row] = await db
    .insert(subscriptions)
    .values({
      accountId: input.accountId,
      isPass: true,
      status: "active",
      tier: input.tier,
      features: [...new Set(input.features)],
      allowedApps: [...new Set(input.apps)],
      endsAt: input.until,
      graceDays: input.graceDays,
    })
    .returning();
  return toSubscriptionRecord(row as typeof subscriptions.$inferSelect);
}

const DAY_MS = 86_400_000;

export const CreateSubscriptionInput = z.object({
  accountId: z.number().int().positive(),
  productId: z.number().int().positive(),
  /** An all-access pass sold as this product: it opens every app (`*`), through the pass check. */
  pass: z.boolean().default(false),
  /** A free trial: no order, and the product for its duration. */
  trial: z.boolean().default(false),
  /** End of the first period (default: a month from now, a fortnight for a trial). */
  until: z.date().optional(),
});
export type CreateSubscriptionInput = z.input<typeof CreateSubscriptionInput>;

/**
 * `subscription:create`: a subscription to a product that renews at the product's price, in one transaction with
 * what it grants: a paid order for the first period (and its invoice), then an entitlement to the product for the
 * period (a `trial` one for a trial). A pass grants no entitlement: the pass check opens its apps.
 */
export async function createSubscription(db: Database, rawInput: CreateSubscriptionInput) {
  const input = parseInput(CreateSubscriptionInput, rawInput);
  const now = new Date();
  const endsAt = input.until ?? new Date(now.getTime() + (input.trial ? 14 : 30) * DAY_MS);
  if (endsAt <= now) throw new ValidationError({ until: ["must be in the future"] });
  return db.transaction(async (tx) => {
    const [account] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
    if (!account) throw new DomainError("not_found", "Account not found.");
    const [product] = await tx.select().from(products).where(eq(products.id, input.productId));
    if (!product) throw new DomainError("not_found", "Product not found.");
    const [card] = await tx
      .select({ id: paymentMethods.id })
      .from(paymentMethods)
      .where(and(eq(paymentMethods.accountId, input.accountId), eq(paymentMethods.isDefault, true)));
    const [created] = await tx
      .insert(subscriptions)
      .values({
        accountId: input.accountId,
        productId: product.id,
        isPass: input.pass,
        status: input.trial ? "trialing" : "active",
        isTrial: input.trial,
        tier: input.pass ? "all-access" : null,
        allowedApps: input.pass ? ["*"] : [],
        startsAt: now,
        endsAt,
        graceDays: input.pass ? 7 : 0,
        renewalAmountCents: product.unitPriceCents,
        renewalCurrency: product.currency,
        paymentMethodId: card?.id ?? null,
      })
      .returning();
    const subscription = created as typeof subscriptions.$inferSelect;
    let order: { id: number; number: string; item_id: number } | null = null;
    if (!input.trial) {
      const placed = await createOrder(
        tx,
        { accountId: input.accountId, productId: product.id },
        {
          grantType: input.pass ? null : "subscription",
          accessExpiresAt: endsAt,
          subscriptionId: subscription.id,
        },
      );
      await tx.update(subscriptions).set({ orderId: placed.id }).where(eq(subscriptions.id, subscription.id));
      order = { id: placed.id, number: placed.number, item_id: placed.item_id };
    } else if (!input.pass) {
      await tx.insert(entitlements).values({
        accountId: input.accountId,
        productId: product.id,
        grantType: "trial",
        subscriptionId: subscription.id,
        accessExpiresAt: endsAt,
        grantedAt: now,
      });
    }
    return {
      ...toSubscriptionRecord({ ...subscription, orderId: order?.id ?? null }),
      product_id: product.id,
      is_trial: subscription.isTrial,
      renewal_amount_cents: subscription.renewalAmountCents,
      renewal_currency: subscription.renewalCurrency,
      order,
    };
  });
}

/** The subscription by id; with an `accountId` (a person acting on their own), only one of that account. */
function ownSubscription(subscriptionId: number, options: { accountId?: number }) {
  return and(
    eq(subscriptions.id, subscriptionId),
    options.accountId === undefined ? undefined : eq(subscriptions.accountId, options.accountId),
  );
}

/**
 * `subscription:resume`: a subscription cancelled at the end of its period renews again, while that period lasts.
 * One that ended (or was cancelled at once) cannot be resumed: it is bought again. Resuming twice changes nothing.
 */
export async function resumeSubscription(db: Database, subscriptionId: number, options: { accountId?: number } = {}) {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(subscriptions).where(ownSubscription(subscriptionId, options)).for("update");
    if (!row) throw new DomainError("not_found", "Subscription not found.");
    const ended =
      row.status === "cancelled" || row.status === "expired" || (row.endsAt !== null && row.endsAt <= new Date());
    if (ended) throw new DomainError("conflict", "This subscription has ended: it can be bought again, not resumed.");
    if (!row.cancelAtPeriodEnd) return { ...toSubscriptionRecord(row), cancel_at_period_end: false };
    const [updated] = await tx
      .update(subscriptions)
      .set({ cancelAtPeriodEnd: false, cancelledAt: null })
      .where(eq(subscriptions.id, subscriptionId))
      .returning();
    const saved = updated as typeof subscriptions.$inferSelect;
    return { ...toSubscriptionRecord(saved), cancel_at_period_end: saved.cancelAtPeriodEnd };
  });
}

/**
 * `subscription:cancel`: at once (it ends now, and what it granted ends with it) or at the end of its period (it runs
 * on without renewing, and can still be resumed). Cancelling twice changes nothing more.
 */
export async function cancelSubscription(
  db: Database,
  subscriptionId: number,
  options: { atPeriodEnd: boolean; accountId?: number },
) {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(subscriptions).where(ownSubscription(subscriptionId, options)).for("update");
    if (!row) throw new DomainError("not_found", "Subscription not found.");
    const now = new Date();
    if (row.status === "cancelled" || row.status === "expired") {
      return { ...toSubscriptionRecord(row), cancel_at_period_end: row.cancelAtPeriodEnd };
    }
    if (options.atPeriodEnd) {
      const [updated] = await tx
        .update(subscriptions)
        .set({ cancelAtPeriodEnd: true, cancelledAt: sql`coalesce(${subscriptions.cancelledAt}, now())` })
        .where(eq(subscriptions.id, subscriptionId))
        .returning();
      const saved = updated as typeof subscriptions.$inferSelect;
      return { ...toSubscriptionRecord(saved), cancel_at_period_end: saved.cancelAtPeriodEnd };
    }
    const endsAt = row.endsAt && row.endsAt < now ? row.endsAt : now;
    const [updated] = await tx
      .update(subscriptions)
      .set({ status: "cancelled", cancelledAt: now, endsAt: endsAt > row.startsAt ? endsAt : null })
      .where(eq(subscriptions.id, subscriptionId))
      .returning();
    await tx
      .update(entitlements)
      .set({ accessExpiresAt: now })
      .where(and(eq(entitlements.subscriptionId, subscriptionId), isNull(entitlements.revokedAt)));
    const saved = updated as typeof subscriptions.$inferSelect;
    return { ...toSubscriptionRecord(saved), cancel_at_period_end: saved.cancelAtPeriodEnd };
  });
}

export const ExchangeRateInput = z.object({
  currency: Currency.refine((code) => code !== "KRW", "is the won itself"),
  krwPerUnit: z.number().positive().max(1e9),
  source: Label,
});
export type ExchangeRateInput = z.input<typeof ExchangeRateInput>;

/** `exchange-rate:set`: how many won one unit of a currency is worth, and who said so (the KRW estimates). */
export async function setExchangeRate(db: Database, rawInput: ExchangeRateInput) {
  const input = parseInput(ExchangeRateInput, rawInput);
  const [row] = await db
    .insert(exchangeRates)
    .values({ currency: input.currency, krwPerUnit: String(input.krwPerUnit), source: input.source })
    .onConflictDoUpdate({
      target: exchangeRates.currency,
      set: { krwPerUnit: String(input.krwPerUnit), source: input.source, asOf: sql`now()` },
    })
    .returning();
  const saved = row as typeof exchangeRates.$inferSelect;
  return {
    currency: saved.currency,
    krw_per_unit: saved.krwPerUnit,
    source: saved.source,
    as_of: saved.asOf.toISOString(),
  };
}
