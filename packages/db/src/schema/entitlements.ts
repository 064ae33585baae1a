import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { GrantType } from "../enums";
import { belongsToAccount } from "./accounts";
import { belongsToProduct, products } from "./catalog";
import { identityId, timestampNow } from "./columns";
import { orderItems, orders, subscriptions } from "./commerce";

export const bundles = pgTable(
  "bundles",
  {
    id: identityId(),
    slug: text().notNull(),
    name: text().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [uniqueIndex("bundles_slug_key").on(t.slug)],
);

export const bundleProducts = pgTable(
  "bundle_products",
  {
    bundleId: integer()
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    productId: belongsToProduct(),
  },
  (t) => [primaryKey({ columns: [t.bundleId, t.productId] }), index().on(t.productId)],
);

/** How an entitlement came to be; `access_source` in the library is this value. */

export const entitlements = pgTable(
  "entitlements",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    productId: belongsToProduct(),
    sourceProductId: integer().references(() => products.id, { onDelete: "set null" }),
    bundleId: integer().references(() => bundles.id, { onDelete: "set null" }),
    /** The order (and its item) that granted it; refunding the order revokes it. */
    orderId: integer().references((): AnyPgColumn => orders.id, { onDelete: "set null" }),
    orderItemId: integer().references((): AnyPgColumn => orderItems.id, { onDelete: "set null" }),
    /** The subscription that grants it while it runs. */
    subscriptionId: integer().references((): AnyPgColumn => subscriptions.id, { onDelete: "set null" }),
    grantType: text().$type<GrantType>().notNull().default("grant"),
    sourceQuantity: integer().notNull().default(1),
    accessExpiresAt: timestamp({ withTimezone: true }),
    updatesSupportedUntil: timestamp({ withTimezone: true }),
    grantedAt: timestampNow(),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index().on(t.accountId, t.productId),
    index().on(t.productId),
    index().on(t.orderId),
    index().on(t.subscriptionId),
    check("entitlements_grant_type", sql`${t.grantType} IN ('purchase', 'grant', 'bundle', 'subscription', 'trial')`),
  ],
);
