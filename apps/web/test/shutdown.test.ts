import { createAccountWithKey } from "@shelf/api/testing";
import { holdTable, itCutsAtShutdownTimeout } from "@shelf/api/testing/apps";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "./server";

let testDb: TestDatabase;
let key: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  key = (await createAccountWithKey(testDb.db)).key;
});
afterAll(() => testDb.drop());

const refused = (url: string) =>
  fetch(`${url}/api/library`).then(
    () => false,
    () => true,
  );

describe("stopping on SIGTERM", () => {
  it("stops accepting at once, finishes the request in flight, then exits 0", async () => {
    const server = await startServer({ DATABASE_URL: testDb.url, SHELF_SHUTDOWN_TIMEOUT_SECONDS: "20" });
    const lock = await holdTable(testDb, "api_keys");
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

  itCutsAtShutdownTimeout(startServer, () => ({ testDb, table: "api_keys", path: "/api/library", token: key }));
});
