import type { PgDatabase } from "drizzle-orm/pg-core";
import { drizzle, type PostgresJsQueryResultHKT } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { installBuiltInArrayTypes } from "./array-types";
import * as schema from "./schema";

export type Database = ReturnType<typeof createDrizzle>;
/** A database or a transaction on it: what services that may run inside a caller's transaction take. */
export type Executor = PgDatabase<PostgresJsQueryResultHKT, typeof schema>;

function createDrizzle(client: postgres.Sql) {
  return drizzle({ client, schema, casing: "snake_case" });
}

export type DbHandle = {
  db: Database;
  /** The underlying postgres.js client, for raw SQL and for closing the pool. */
  sql: postgres.Sql;
  /** How long work that needs this database may wait for it before the caller gives up (see withDeadline). */
  deadlineMs: number;
  close: () => Promise<void>;
};

/** How long the database may take: to connect, per statement, and idle inside a transaction. */
export type DbTimeouts = {
  connectSeconds: number;
  statementMs: number;
  idleInTransactionMs: number;
};

export const DEFAULT_DB_TIMEOUTS: DbTimeouts = { connectSeconds: 5, statementMs: 5000, idleInTransactionMs: 10_000 };

export type CreateDbOptions = {
  /** Pool size; postgres.js opens connections lazily up to this many. */
  max?: number;
  timeouts?: DbTimeouts;
  /**
   * Called with every SQL statement sent, through drizzle or raw: statement counts in tests and benchmarks. Not for
   * production: postgres.js then captures a stack trace for every statement (about 26 µs each).
   */
  onQuery?: (query: string) => void;
};

/**
 * A pool on one database. Every connection carries the timeouts: PostgreSQL cancels a statement running past
 * `statementMs` and ends a session idle in a transaction past `idleInTransactionMs`; a connection attempt gives up
 * after `connectSeconds`. A server that stops answering altogether (frozen) enforces nothing, so callers also race
 * their work against `deadlineMs`.
 */
export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const timeouts = options.timeouts ?? DEFAULT_DB_TIMEOUTS;
  const client = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // Not postgres.js's own type fetch: see installBuiltInArrayTypes.
    fetch_types: false,
    connect_timeout: timeouts.connectSeconds,
    ...(options.onQuery ? { debug: (_connection: number, query: string) => options.onQuery?.(query) } : {}),
    connection: {
      application_name: "shelf",
      statement_timeout: timeouts.statementMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
      // JIT compiles a statement whose estimated cost is high (the gallery's facets over 100,000 screens) for 0.5 s
      // or more before it runs: never worth it for statements that run in milliseconds.
      jit: "off",
    },
  });
  installBuiltInArrayTypes(client);
  return {
    db: createDrizzle(client),
    sql: client,
    deadlineMs: timeouts.statementMs + 1000,
    close: () => client.end({ timeout: 2 }),
  };
}
