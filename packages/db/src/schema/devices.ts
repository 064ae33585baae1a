import { sql } from "drizzle-orm";
import {
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { belongsToAccount } from "./accounts";
import { belongsToProduct } from "./catalog";
import { identityId, timestampNow } from "./columns";
import { apiKeys } from "./keys";

export const devices = pgTable(
  "devices",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    /** The identifier the client reports for the machine (`device_id` in license checks). */
    identifier: text().notNull(),
    name: text(),
    /** When the device was first activated for a product (DeviceInfoData.activated_at). */
    activatedAt: timestamp({ withTimezone: true }),
    lastSeenAt: timestamp({ withTimezone: true }),
    /** The app version of the device's last license check. */
    lastAppVersion: text(),
    createdAt: timestampNow(),
  },
  (t) => [uniqueIndex("devices_account_identifier_key").on(t.accountId, t.identifier)],
);

/**
 * A device's seat on a product: made by its first license check, counted against the product's device limit,
 * released by the device (its product key), the operator, or a revocation.
 */
export const deviceActivations = pgTable(
  "device_activations",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    productId: belongsToProduct(),
    deviceId: integer()
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    /** The key of the last license check for this seat: releasing a product key releases the seats it checked. */
    apiKeyId: integer().references(() => apiKeys.id, { onDelete: "set null" }),
    appVersion: text(),
    activatedAt: timestampNow(),
    lastCheckedAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("device_activations_account_product_device_key").on(t.accountId, t.productId, t.deviceId),
    index().on(t.deviceId),
    index().on(t.apiKeyId),
  ],
);

/** An install a device reported (`POST /api/device/installs`); a retried report is the same row. */
export const deviceInstalls = pgTable(
  "device_installs",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    productId: belongsToProduct(),
    apiKeyId: integer()
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    version: text().notNull(),
    bundleId: text(),
    installedAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("device_installs_report_key").on(t.apiKeyId, t.productId, t.version, t.installedAt),
    index().on(t.accountId, t.productId),
  ],
);

/** Daily usage a device uploaded: one row per account, product, device key and date, overwritten by a new upload. */
export const deviceUsage = pgTable(
  "device_usage",
  {
    accountId: belongsToAccount(),
    productId: belongsToProduct(),
    apiKeyId: integer()
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    usageDate: date({ mode: "string" }).notNull(),
    launches: integer().notNull(),
    /** Command name to count, as the client reported it. */
    commands: jsonb().$type<Record<string, number>>(),
    createdAt: timestampNow(),
    updatedAt: timestampNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.productId, t.apiKeyId, t.usageDate] }),
    index().on(t.productId, t.usageDate),
    check("device_usage_launches", sql`${t.launches} BETWEEN 0 AND 1000000`),
  ],
);

export const setupProgress = pgTable(
  "setup_progress",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    productId: belongsToProduct(),
    completedStepIndexes: integer().array().notNull().default(sql`'{}'::integer[]`),
    completedAt: timestamp({ withTimezone: true }),
    updatedAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("setup_progress_account_product_key").on(t.accountId, t.productId),
    index().on(t.productId),
    check("setup_progress_indexes_non_negative", sql`0 <= ALL(${t.completedStepIndexes})`),
  ],
);
