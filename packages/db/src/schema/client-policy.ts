import { sql } from "drizzle-orm";
import { check, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { belongsToProduct } from "./catalog";
import { identityId, timestampNow } from "./columns";

/**
 * The client policy every client fetches signed (`GET /api/client-config`): one row. `version` grows with every
 * change, revocations included.
 */
export const clientPolicy = pgTable(
  "client_policy",
  {
    id: integer().primaryKey().default(1),
    minClientVersion: text().notNull().default("0.0.0"),
    ttlDays: integer().notNull().default(14),
    recheckHours: integer().notNull().default(24),
    version: integer().notNull().default(1),
    updatedAt: timestampNow(),
  },
  (t) => [
    check("client_policy_single_row", sql`${t.id} = 1`),
    check("client_policy_ttl_days", sql`${t.ttlDays} BETWEEN 1 AND 365`),
    check("client_policy_recheck_hours", sql`${t.recheckHours} BETWEEN 1 AND 8760`),
  ],
);

/**
 * A device cut off from a product, by an operator or by the owner of an account it was seated in: its license checks
 * fail, and the policy tells its clients.
 */
export const clientPolicyRevocations = pgTable(
  "client_policy_revocations",
  {
    id: identityId(),
    productId: belongsToProduct(),
    /** The identifier the device reports (`device_id` of license checks). */
    deviceIdentifier: text().notNull(),
    /**
     * The account whose owner blocked the device from the product page; null for the operator's `policy:revoke`. Its
     * license checks then say the account's owner blocked it, not the seller.
     */
    blockedByAccountId: integer().references(() => accounts.id, { onDelete: "set null" }),
    createdAt: timestampNow(),
  },
  (t) => [uniqueIndex("client_policy_revocations_product_device_key").on(t.productId, t.deviceIdentifier)],
);
