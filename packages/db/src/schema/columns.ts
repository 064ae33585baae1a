import { sql } from "drizzle-orm";
import { type AnyPgColumn, check, integer, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/** The row's own id: an identity column the database numbers (clients never choose it). */
export const identityId = () => integer().primaryKey().generatedAlwaysAsIdentity();

/** A time with time zone, never null, that a row gets when it is written unless the writer gives one. */
export const timestampNow = () => timestamp({ withTimezone: true }).notNull().defaultNow();

/**
 * A column that holds a SHA-256 (of a token, key or session id) that rows are found by: unique
 * (`<name>_key`) and lowercase hex (`<name>_hex`), `name` being the table's and the column's names.
 */
export const sha256Lookup = (name: string, column: AnyPgColumn) => [
  uniqueIndex(`${name}_key`).on(column),
  check(`${name}_hex`, sql`${column} ~ '^[0-9a-f]{64}$'`),
];
