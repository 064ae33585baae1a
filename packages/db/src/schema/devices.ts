import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { products } from "./catalog";

export const devices = pgTable(
  "devices",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The identifier the client reports for the machine (`device_id` in license checks). */
    identifier: text().notNull(),
    name: text(),
    activatedAt: timestamp({ withTimezone: true }),
    lastSeenAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("devices_account_identifier_key").on(t.accountId, t.identifier)],
);

export const setupProgress = pgTable(
  "setup_progress",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    productId: integer()
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    completedStepIndexes: integer().array().notNull().default(sql`'{}'::integer[]`),
    completedAt: timestamp({ withTimezone: true }),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("setup_progress_account_product_key").on(t.accountId, t.productId),
    index().on(t.productId),
    check("setup_progress_indexes_non_negative", sql`0 <= ALL(${t.completedStepIndexes})`),
  ],
);
