import fs from "node:fs/promises";
import { designTokens } from "@shelf/api";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDesignServer } from "./server";

let testDb: TestDatabase;
let token: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  token = (await designTokens.createDesignToken(testDb.db, { name: "reader", roles: ["read"] }, "shelf")).token;
});
afterAll(() => testDb.drop());

/** Holds an exclusive lock on the design token table, so a request with a token stays in flight until released. */
async function holdTokenTable() {
  const client = postgres(testDb.url, { max: 1, onnotice: () => {} });
  const reserved = await client.reserve();
  await reserved`begin`;
  await reserved`lock table design_tokens in access exclusive mode`;
  return {
    waitForWaiter: async () => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [row] = await testDb.sql<{ waiting: number }[]>`
          select count(*)::int as waiting from pg_locks
          where not granted and relation = 'design_tokens'::regclass
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

describe("stopping the design app on SIGTERM", () => {
  it("stops accepting at once, finishes the request in flight, logs it under its request id, then exits 0", async () => {
    const server = await startDesignServer({ DATABASE_URL: testDb.url, SHELF_SHUTDOWN_TIMEOUT_SECONDS: "20" });
    const lock = await holdTokenTable();
    try {
      const inFlight = fetch(`${server.url}/api/agent/docs/in-flight`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await lock.waitForWaiter();
      const exited = server.signal("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 500));
      const refused = await fetch(`${server.url}/healthz`).then(
        () => false,
        () => true,
      );
      expect(refused).toBe(true);
      await lock.release();
      const response = await inFlight;
      expect(response.status).toBe(404);
      expect((await response.json()).error).toMatch(/not_found/);
      expect(await exited).toBe(0);
      // The log (the test run's SHELF_LOG_FILE, flushed at exit) has the request's line, under the id it answered with.
      const requestId = response.headers.get("x-request-id");
      const lines = (await fs.readFile(process.env.SHELF_LOG_FILE as string, "utf8"))
        .split("\n")
        .filter((line) => line.includes(`"reqId":"${requestId}"`))
        .map((line) => JSON.parse(line));
      expect(lines).toEqual([
        expect.objectContaining({ app: "design", msg: "request", route: "GET /api/agent/docs/{slug}", status: 404 }),
      ]);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("cuts a request that outlives the shutdown timeout and still exits", async () => {
    const server = await startDesignServer({ DATABASE_URL: testDb.url, SHELF_SHUTDOWN_TIMEOUT_SECONDS: "1" });
    const lock = await holdTokenTable();
    try {
      const inFlight = fetch(`${server.url}/api/agent/docs/cut`, {
        headers: { authorization: `Bearer ${token}` },
      }).then(
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
