import { Writable } from "node:stream";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createLogger } from "@shelf/server/log";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUSEKEEPING_LOCK, pruneIfFree, scheduleHousekeeping } from "./housekeeping";
import { createAccount } from "./testing";

/**
 * Housekeeping from a running server: passes on a timer, one instance at a time through an advisory lock. What a
 * pass removes and keeps is tested through the operator CLI (apps/admin/src/housekeeping.test.ts).
 */

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb?.drop());

const hex = (n: number) => n.toString(16).padStart(64, "0");

async function deadWebSession(n: number) {
  const account = await createAccount(testDb.db);
  await testDb.db.execute(sql`insert into web_sessions (account_id, token_hash, expires_at)
    values (${account.id}, ${hex(n)}, now() - interval '40 days')`);
}

const webSessionsLeft = async () =>
  ((await testDb.sql`select count(*)::int as n from web_sessions`)[0] as { n: number }).n;

function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: createLogger({ SHELF_LOG_LEVEL: "info", SHELF_LOG_FILE: undefined }, {}, sink) };
}

describe("scheduled housekeeping", () => {
  it("leaves the work to the instance holding the lock, and prunes once it is free", async () => {
    await deadWebSession(1);
    // Another instance in the middle of a pass.
    const held = await testDb.sql.reserve();
    try {
      await held`select pg_advisory_lock(${HOUSEKEEPING_LOCK})`;
      expect(await pruneIfFree(testDb.db)).toBeNull();
      expect(await webSessionsLeft()).toBe(1);
      await held`select pg_advisory_unlock(${HOUSEKEEPING_LOCK})`;
    } finally {
      held.release();
    }
    expect(await pruneIfFree(testDb.db)).toMatchObject({ web_sessions: 1 });
    expect(await webSessionsLeft()).toBe(0);
  });

  it("prunes on its timer, logs what it removed, and stops cleanly", async () => {
    await deadWebSession(2);
    const { lines, log } = capturedLogger();
    const housekeeping = scheduleHousekeeping(testDb.db, { intervalMs: 100, log });
    try {
      const deadline = Date.now() + 15_000;
      while ((await webSessionsLeft()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await webSessionsLeft()).toBe(0);
    } finally {
      await housekeeping.stop();
    }
    log.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: "housekeeping", pruned: expect.objectContaining({ web_sessions: 1 }) }),
    );
    // Stopped: a later dead session stays, and asking for a pass after the stop does nothing.
    await deadWebSession(3);
    await housekeeping.runNow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await webSessionsLeft()).toBe(1);
  });

  it("logs a failed pass and tries again on the next one", async () => {
    const { lines, log } = capturedLogger();
    const broken = await createTestDatabase();
    await broken.sql`drop table device_sign_ins`;
    const housekeeping = scheduleHousekeeping(broken.db, { intervalMs: 60_000, log });
    try {
      await housekeeping.runNow();
      await housekeeping.runNow();
    } finally {
      await housekeeping.stop();
      await broken.drop();
    }
    log.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const failures = lines.filter((line) => line.msg === "housekeeping failed; the next pass tries again");
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({ level: "warn", err: { cause: { code: "42P01" } } });
  });
});
