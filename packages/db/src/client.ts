import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type Database = ReturnType<typeof createDrizzle>;

function createDrizzle(client: postgres.Sql) {
  return drizzle({ client, schema, casing: "snake_case" });
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
  /** Called with every SQL statement sent, through drizzle or raw: statement counts in tests and benchmarks. */
  onQuery?: (query: string) => void;
};

export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const client = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    ...(options.onQuery ? { debug: (_connection: number, query: string) => options.onQuery?.(query) } : {}),
    connection: { application_name: "shelf" },
  });
  return {
    db: createDrizzle(client),
    sql: client,
    close: () => client.end({ timeout: 5 }),
  };
}
