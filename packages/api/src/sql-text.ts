import type { Database, Executor } from "@shelf/db";
import { type AnyColumn, type SQL, sql } from "drizzle-orm";

/**
 * SQL written by hand for the hot paths, and what its rows need: the driver hands timestamps over as PostgreSQL's
 * text (drizzle turns its own date parsing off), so hand-written queries select them already in ISO 8601.
 */

/** A timestamptz column as ISO 8601 in UTC with milliseconds, exactly as `Date.prototype.toISOString` writes it. */
export const isoSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Rows of a prepared statement with positional parameters ($1, $2...), sent as written. */
export async function preparedRows<T>(db: Database, text: string, params: readonly unknown[]): Promise<T[]> {
  return (await db.$client.unsafe(text, params as never[], { prepare: true })) as unknown as T[];
}

/** Rows of a drizzle `sql` statement, on a database or inside a transaction. */
export async function sqlRows<T>(db: Executor, query: SQL): Promise<T[]> {
  return (await db.execute(query)) as unknown as T[];
}

/**
 * A column that keeps its table's name wherever it lands. drizzle writes the columns of a single-table query bare
 * (`"id"`), and a bare name inside a subquery binds to the subquery's own table first (`r.product_id = "id"` compares
 * `r.id`). Wrapped in a fragment of its own, the column is written `"products"."id"`. The test databases refuse
 * statements that leave a bare name inside a subquery (`bareColumnsInSubqueries`).
 */
export const qualified = (column: AnyColumn): SQL => sql`${column}`;
