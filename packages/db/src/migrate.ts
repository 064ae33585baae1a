import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";

export const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../drizzle");

/** Any constant works; it only has to be the same in every process that migrates this database. */
const MIGRATION_LOCK_ID = 0x5e1f_0001;

/**
 * Applies the committed migrations. Several app instances may start at once against one server, so the whole
 * run holds a session advisory lock on its single connection: the first applies, the others wait and find
 * nothing left to do.
 */
export async function runMigrations(url: string): Promise<void> {
  const client = postgres(url, { max: 1, fetch_types: false, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migrate(drizzle({ client }), { migrationsFolder });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** How many migrations this code ships (drizzle's journal). */
const expectedMigrations = (
  JSON.parse(readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8")) as { entries: unknown[] }
).entries.length;

/** Whether every migration this code ships has been applied to the database the client is connected to. */
export async function migrationsApplied(sql: postgres.Sql): Promise<boolean> {
  const [row] = await sql<{ applied: number | null }[]>`
    select case when to_regclass('drizzle.__drizzle_migrations') is null then null
      else (select count(*)::int from drizzle.__drizzle_migrations) end as applied`;
  return (row?.applied ?? 0) >= expectedMigrations;
}
