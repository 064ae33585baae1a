import fs from "node:fs/promises";
import { designTokens } from "@shelf/api";
import { holdTable, itCutsAtShutdownTimeout } from "@shelf/api/testing/apps";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDesignServer } from "./server";

let testDb: TestDatabase;
let token: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  token = (await designTokens.createDesignToken(testDb.db, { name: "reader", roles: ["read"] }, "shelf")).token;
});
afterAll(() => testDb.drop());

describe("stopping the design app on SIGTERM", () => {
  it("stops accepting at once, finishes the request in flight, logs it under its request id, then exits 0", async () => {
    const server = await startDesignServer({ DATABASE_URL: testDb.url, SHELF_SHUTDOWN_TIMEOUT_SECONDS: "20" });
    const lock = await holdTable(testDb, "design_tokens");
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

  itCutsAtShutdownTimeout(startDesignServer, () => ({
    testDb,
    table: "design_tokens",
    path: "/api/agent/docs/cut",
    token,
  }));
});
