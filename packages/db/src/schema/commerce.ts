import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  boolean,
  check,
  index,
  integer,
  numeric,
  pgSequence,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { InvoiceStatus, OrderStatus, SubscriptionStatus } from "../enums";
import { accounts, belongsToAccount } from "./accounts";
import { products } from "./catalog";
import { identityId, timestampNow } from "./columns";

/**
 * Money is integers in the currency's minor unit (`*_cents`: cents for USD, won for KRW, which has none) with a
 * three-letter currency code. A KRW amount includes 10 % VAT, split into supply and VAT.
 */

/** Order and invoice numbers count up, across accounts (`SH-2026-000042`, `INV-2026-000042`). */
export const orderNumbers = pgSequence("order_number_seq");
export const invoiceNumbers = pgSequence("invoice_number_seq");

/** A card on file: only its brand, last four digits and expiry exist here; the full number never does. */
export const paymentMethods = pgTable(
  "payment_methods",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    brand: text().notNull(),
    last4: text().notNull(),
    expMonth: integer().notNull(),
    expYear: integer().notNull(),
    isDefault: boolean().notNull().default(false),
    createdAt: timestampNow(),
  },
  (t) => [
    index().on(t.accountId),
    check("payment_methods_last4", sql`${t.last4} ~ '^[0-9]{4}$'`),
    check("payment_methods_exp_month", sql`${t.expMonth} BETWEEN 1 AND 12`),
    check("payment_methods_exp_year", sql`${t.expYear} BETWEEN 2000 AND 2200`),
  ],
);

export const orders = pgTable(
  "orders",
  {
    id: identityId(),
    // Sales records outlive the account (tax retention): deleting an account anonymises its row, and a DELETE of an
    // account that has orders or invoices is refused.
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "restrict" }),
    /** What people quote: `SH-` and the date and a sequence, unique. */
    number: text().notNull(),
    status: text().$type<OrderStatus>().notNull(),
    currency: text().notNull(),
    subtotalCents: integer().notNull(),
    discountTotalCents: integer().notNull().default(0),
    totalCents: integer().notNull(),
    /** The KRW total's supply amount and VAT (10 % included); null in other currencies. */
    supplyCents: integer(),
    vatCents: integer(),
    /** How it was paid: `card`, `bank_transfer`, `free`. */
    paymentMethod: text().notNull(),
    paymentMethodId: integer().references(() => paymentMethods.id, { onDelete: "set null" }),
    receiptUrl: text(),
    /** The subscription this order started or renewed. */
    subscriptionId: integer().references((): AnyPgColumn => subscriptions.id, { onDelete: "set null" }),
    paidAt: timestamp({ withTimezone: true }),
    refundedAt: timestamp({ withTimezone: true }),
    /** When the buyer asked to withdraw from it (a refund request); set once, by the first request. */
    withdrawalRequestedAt: timestamp({ withTimezone: true }),
    createdAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("orders_number_key").on(t.number),
    index().on(t.accountId, t.id),
    check("orders_status", sql`${t.status} IN ('pending', 'paid', 'refunded', 'cancelled')`),
    check("orders_currency", sql`${t.currency} ~ '^[A-Z]{3}$'`),
    check(
      "orders_totals",
      sql`${t.subtotalCents} >= 0 AND ${t.discountTotalCents} >= 0 AND ${t.totalCents} = ${t.subtotalCents} - ${t.discountTotalCents} AND ${t.totalCents} >= 0`,
    ),
    check(
      "orders_vat_split",
      sql`(${t.supplyCents} IS NULL) = (${t.vatCents} IS NULL) AND (${t.supplyCents} IS NULL OR ${t.supplyCents} + ${t.vatCents} = ${t.totalCents})`,
    ),
  ],
);

export const orderItems = pgTable(
  "order_items",
  {
    id: identityId(),
    orderId: integer()
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    productId: integer()
      .notNull()
      .references(() => products.id, { onDelete: "restrict" }),
    /** The product's name when it was bought. */
    productName: text().notNull(),
    listUnitPriceCents: integer().notNull(),
    unitPriceCents: integer().notNull(),
    quantity: integer().notNull(),
    subtotalCents: integer().notNull(),
    discountTotalCents: integer().notNull().default(0),
    totalCents: integer().notNull(),
  },
  (t) => [
    index().on(t.orderId),
    check("order_items_quantity", sql`${t.quantity} BETWEEN 1 AND 1000`),
    check(
      "order_items_totals",
      sql`${t.subtotalCents} = ${t.unitPriceCents} * ${t.quantity} AND ${t.totalCents} = ${t.subtotalCents} - ${t.discountTotalCents} AND ${t.totalCents} >= 0`,
    ),
  ],
);

export const invoices = pgTable(
  "invoices",
  {
    id: identityId(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "restrict" }),
    number: text().notNull(),
    status: text().$type<InvoiceStatus>().notNull(),
    currency: text().notNull(),
    totalCents: integer().notNull(),
    supplyCents: integer(),
    vatCents: integer(),
    orderId: integer().references(() => orders.id, { onDelete: "set null" }),
    subscriptionId: integer().references(() => subscriptions.id, { onDelete: "set null" }),
    issuedAt: timestampNow(),
    dueAt: timestamp({ withTimezone: true }),
    paidAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("invoices_number_key").on(t.number),
    // The invoice list pages by id, newest first, per account (and status).
    index().on(t.accountId, t.id),
    index().on(t.accountId, t.status, t.id),
    check("invoices_status", sql`${t.status} IN ('draft', 'open', 'paid', 'void', 'uncollectible')`),
    check("invoices_currency", sql`${t.currency} ~ '^[A-Z]{3}$'`),
    check("invoices_total", sql`${t.totalCents} >= 0`),
    check(
      "invoices_vat_split",
      sql`(${t.supplyCents} IS NULL) = (${t.vatCents} IS NULL) AND (${t.supplyCents} IS NULL OR ${t.supplyCents} + ${t.vatCents} = ${t.totalCents})`,
    ),
  ],
);

/** How many won one unit of a currency was worth, and who said so: the KRW estimates of subscriptions. */
export const exchangeRates = pgTable("exchange_rates", {
  currency: text().primaryKey(),
  krwPerUnit: numeric({ precision: 18, scale: 6 }).notNull(),
  source: text().notNull(),
  asOf: timestampNow(),
});

/**
 * A subscription of an account: to a product, or an all-access pass (`is_pass`) whose tier, features and apps say
 * what it opens. Access lasts from `starts_at` to `ends_at` (null: open-ended); a pass that lapsed without being
 * cancelled keeps working `grace_days` longer, with a warning.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    productId: integer().references(() => products.id, { onDelete: "set null" }),
    isPass: boolean().notNull().default(false),
    status: text().$type<SubscriptionStatus>().notNull().default("active"),
    isTrial: boolean().notNull().default(false),
    tier: text(),
    features: text().array().notNull().default(sql`'{}'::text[]`),
    /** Apps the pass opens, by bundle id or product slug; `*` for every app. */
    allowedApps: text().array().notNull().default(sql`'{}'::text[]`),
    startsAt: timestampNow(),
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
    createdAt: timestampNow(),
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
