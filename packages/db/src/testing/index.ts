import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { type CreateDbOptions, createDb, type DbHandle } from "../client";
import "./provided";
import { bareColumnsInSubqueries } from "./subquery-columns";
import { databaseUrl } from "./urls";

export { databaseUrl } from "./urls";

export type TestDatabase = DbHandle & { url: string; name: string; drop: () => Promise<void> };

/**
 * A database of this test file's own, copied from the migrated template (tens of milliseconds), so tests never
 * share mutable state. Drop it in afterAll: dropping fails the file when any statement it ran named a bare column
 * inside a subquery (see bareColumnsInSubqueries).
 */
export async function createTestDatabase(options: CreateDbOptions = {}): Promise<TestDatabase> {
  const serverUrl = inject("dbServerUrl");
  const name = `${inject("dbRunPrefix")}_${randomBytes(5).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template ${inject("dbTemplate")}`);
        break;
      } catch (error) {
        // Two files copying the template at the same instant: PostgreSQL refuses the second; try again.
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = databaseUrl(serverUrl, name);
  const ambiguous = new Map<string, string[]>();
  const handle = createDb(url, {
    ...options,
    onQuery: (query) => {
      const bare = bareColumnsInSubqueries(query);
      if (bare.length > 0) ambiguous.set(query, bare);
      options.onQuery?.(query);
    },
  });
  return {
    ...handle,
    url,
    name,
    drop: async () => {
      await handle.close();
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end({ timeout: 5 });
      if (ambiguous.size > 0) {
        const list = [...ambiguous].map(([query, names]) => `  ${names.join(", ")} in: ${query}`).join("\n");
        throw new Error(`Statements name a column without its table inside a subquery; qualify it:\n${list}`);
      }
    },
  };
}

/**
 * The usual set-up of a test file: its own database, made before its tests and dropped after them. Call it at the
 * top of the file; what it returns reads the database made in beforeAll, so touch it inside hooks and tests only.
 */
export function useTestDatabase(options: CreateDbOptions = {}): TestDatabase {
  let opened: TestDatabase | undefined;
  beforeAll(async () => {
    opened = await createTestDatabase(options);
  });
  afterAll(() => opened?.drop());
  return new Proxy({} as TestDatabase, {
    get(_target, key) {
      if (!opened) throw new Error("The test database is made in beforeAll: read it inside a hook or a test");
      return opened[key as keyof TestDatabase];
    },
  });
}
