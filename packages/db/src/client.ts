import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type Database = ReturnType<typeof createDrizzle>;

function createDrizzle(client: postgres.Sql, onQuery?: (query: string) => void) {
  return drizzle({ client, schema, casing: "snake_case", logger: onQuery ? { logQuery: onQuery } : false });
}

export type DbHandle = {
  db: Database;
  /** The underlying postgres.js client, for raw SQL and for closing the pool. */
  sql: postgres.Sql;
  close: () => Promise<void>;
};

export type CreateDbOptions = {
  /** Pool size; postgres.js opens connections lazily up to this many. */
  max?: number;
  /** Called with every SQL statement drizzle sends: statement counts in tests and benchmarks. */
  onQuery?: (query: string) => void;
};

export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const client = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: { application_name: "shelf" },
  });
  return {
    db: createDrizzle(client, options.onQuery),
    sql: client,
    close: () => client.end({ timeout: 5 }),
  };
}
