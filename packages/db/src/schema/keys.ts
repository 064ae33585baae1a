import { sql } from "drizzle-orm";
import { type AnyPgColumn, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { ApiKeyKind } from "../enums";
import { belongsToAccount } from "./accounts";
import { products } from "./catalog";
import { identityId, sha256Lookup, timestampNow } from "./columns";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    productId: integer().references(() => products.id, { onDelete: "cascade" }),
    kind: text().$type<ApiKeyKind>().notNull().default("created"),
    name: text(),
    /** Which client a device sign-in key belongs to (the CLI, a desktop app): the unit of least-recently-used replacement. */
    client: text(),
    /** The first 14 characters of the plain key, shown in key lists. */
    prefix: text().notNull(),
    /** SHA-256 of the plain key, lowercase hex. The plain key is never stored. */
    hash: text().notNull(),
    abilities: text().array().notNull(),
    /** The device key whose bulk activation issued this product key; a new activation by it replaces this one. */
    issuedByKeyId: integer().references((): AnyPgColumn => apiKeys.id, { onDelete: "set null" }),
    expiresAt: timestamp({ withTimezone: true }),
    lastUsedAt: timestamp({ withTimezone: true }),
    /** The client address of the last recorded use (written with `lastUsedAt`, or when the address changes). */
    lastUsedAddress: text(),
    revokedAt: timestamp({ withTimezone: true }),
    createdAt: timestampNow(),
    /**
     * The one-time token of the key form that made this key: the unique index refuses a second key from the same
     * form (a double press, a resent post), however close together they arrive.
     */
    formToken: text(),
  },
  (t) => [
    ...sha256Lookup("api_keys_hash", t.hash),
    uniqueIndex("api_keys_form_token_key").on(t.accountId, t.formToken),
    index().on(t.accountId, t.productId),
    index().on(t.issuedByKeyId),
    check("api_keys_kind", sql`${t.kind} IN ('created', 'device')`),
    check("api_keys_prefix_length", sql`char_length(${t.prefix}) = 14`),
  ],
);
