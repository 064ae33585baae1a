import { createAccountWithKey } from "@shelf/api/testing";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "./server";

let testDb: TestDatabase;
let key: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  key = (await createAccountWithKey(testDb.db)).key;
});
afterAll(() => testDb.drop());

/** Holds an exclusive lock on the key table, so a keyed request stays in flight until it is released. */
async function holdKeyTable() {
  const client = postgres(testDb.url, { max: 1, onnotice: () => {} });
  const reserved = await client.reserve();
  await reserved`begin`;
  await reserved`lock table api_keys in access exclusive mode`;
  return {
    /** Resolves once a request of the server waits on the lock, however slow the machine is. */
    waitForWaiter: async () => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [row] = await testDb.sql<{ waiting: number }[]>`
          select count(*)::int as waiting from pg_locks
          where not granted and relation = 'api_keys'::regclass
            and database = (select oid from pg_database where datname = current_database())`;
        if ((row?.waiting ?? 0) > 0) return;
        if (Date.now() > deadline) throw new Error("no request reached the locked table in 20 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    release: async () => {
      await reserved`commit`;
      reserved.release();
      await client.end();
    },
  };
}

const refused = (url: string) =>
  fetch(`${url}/api/library`).then(
    () => false,
    () => true,
  );

describe("stopping on SIGTERM", () => {
  it("stops accepting at once, finishes the request in flight, then exits 0", async () => {
    const server = await startServer({ DATABASE_URL: testDb.url, SHELF_SHUTDOWN_TIMEOUT_SECONDS: "20" });
    const lock = await holdKeyTable();
    try {
      const inFlight = fetch(`${server.url}/api/library`, { headers: { authorization: `Bearer ${key}` } });
      await lock.waitForWaiter();
      const exited = server.signal("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await refused(server.url)).toBe(true);
      await lock.release();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect((await response.json()).items).toEqual([]);
      expect(await exited).toBe(0);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("cuts a request that outlives the shutdown timeout and still exits", async () => {
    const server = await startServer({ DATABASE_URL: testDb.url, SHELF_SHUTDOWN_TIMEOUT_SECONDS: "1" });
    const lock = await holdKeyTable();
    try {
      const inFlight = fetch(`${server.url}/api/library`, { headers: { authorization: `Bearer ${key}` } }).then(
        (response) => response.status,
        () => "cut",
      );
      await lock.waitForWaiter();
      const started = Date.now();
      const exited = server.signal("SIGTERM");
      expect(await inFlight).toBe("cut");
      await lock.release();
      expect(await exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
