import type { Database } from "@shelf/db";

/**
 * A value built once per database handle: hot-path queries are built by drizzle once (building a query costs
 * more Node time than running it) and prepared on the server under a fixed name.
 */
export function perDatabase<T>(build: (db: Database) => T): (db: Database) => T {
  const cache = new WeakMap<Database, T>();
  return (db) => {
    let value = cache.get(db);
    if (value === undefined) {
      value = build(db);
      cache.set(db, value);
    }
    return value;
  };
}
