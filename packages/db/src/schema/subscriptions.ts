import { sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { SubscriptionStatus } from "../enums";
import { accounts } from "./accounts";
import { products } from "./catalog";
import { orders, paymentMethods } from "./commerce";

/**
 * A subscription of an account: to a product, or an all-access pass (`is_pass`) whose tier, features and apps say
 * what it opens. Access lasts from `starts_at` to `ends_at` (null: open-ended); a pass that lapsed without being
 * cancelled keeps working `grace_days` longer, with a warning.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    productId: integer().references(() => products.id, { onDelete: "set null" }),
    isPass: boolean().notNull().default(false),
    status: text().$type<SubscriptionStatus>().notNull().default("active"),
    isTrial: boolean().notNull().default(false),
    tier: text(),
    features: text().array().notNull().default(sql`'{}'::text[]`),
    /** Apps the pass opens, by bundle id or product slug; `*` for every app. */
    allowedApps: text().array().notNull().default(sql`'{}'::text[]`),
    startsAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    endsAt: timestamp({ withTimezone: true }),
    graceDays: integer().notNull().default(0),
    cancelledAt: timestamp({ withTimezone: true }),
    /** Cancelled by its holder: it runs to `ends_at` and does not renew. */
    cancelAtPeriodEnd: boolean().notNull().default(false),
    /** The order that started it. */
    orderId: integer().references((): AnyPgColumn => orders.id, { onDelete: "set null" }),
    /** What the next renewal charges; null for a subscription that does not renew (a granted pass, a trial). */
    renewalAmountCents: integer(),
    renewalCurrency: text(),
    paymentMethodId: integer().references((): AnyPgColumn => paymentMethods.id, { onDelete: "set null" }),
    offerCode: text(),
    offerName: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index().on(t.accountId),
    check("subscriptions_status", sql`${t.status} IN ('active', 'trialing', 'past_due', 'cancelled', 'expired')`),
    check("subscriptions_grace_days", sql`${t.graceDays} BETWEEN 0 AND 365`),
    check("subscriptions_period", sql`${t.endsAt} IS NULL OR ${t.endsAt} > ${t.startsAt}`),
    check(
      "subscriptions_renewal",
      sql`(${t.renewalAmountCents} IS NULL) = (${t.renewalCurrency} IS NULL) AND coalesce(${t.renewalAmountCents}, 0) >= 0`,
    ),
  ],
);
