import { createDatabaseHealth, type DatabaseHealth } from "@shelf/db/server";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startDbProxy } from "../testing/db-proxy";

let testDb: TestDatabase;
let proxy: Awaited<ReturnType<typeof startDbProxy>>;
let health: DatabaseHealth | undefined;

beforeAll(async () => {
  testDb = await createTestDatabase();
  proxy = await startDbProxy(testDb.url);
});
afterEach(async () => {
  await health?.close();
  health = undefined;
  await proxy.restore();
});
afterAll(async () => {
  await proxy?.close();
  await testDb?.drop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the monitor says the database is up, with nothing asking it (no `check()`); false after `ms`. */
async function comesBackWithin(watched: DatabaseHealth, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!watched.up && Date.now() < until) await pause(20);
  return watched.up;
}

// Nothing polls readiness in these tests: the monitor's own probe loop alone must bring the database back.
describe("the database health monitor after an outage", () => {
  it("keeps probing while its last failed answer is still fresh enough to be reused", async () => {
    // Probes every 100 ms, answers reused for 5 s: every timer fires while the last failure is cached.
    health = createDatabaseHealth(proxy.url, { probeTimeoutMs: 500, probeIntervalMs: 100, maxAgeMs: 5000 });
    await proxy.cut();
    health.reportFailure("test outage");
    await pause(800);
    const failedWhileDown = health.counts.probesFailed;
    expect(failedWhileDown).toBeGreaterThanOrEqual(3);
    await proxy.restore();
    expect(await comesBackWithin(health, 2000)).toBe(true);
    expect(health.counts.probesOk).toBeGreaterThanOrEqual(1);
  });

  it("comes back by itself after each of many refused and frozen outages", async () => {
    // The production proportions (interval = cache age), scaled down, so that timers and cache ages meet as they do.
    const watched = createDatabaseHealth(proxy.url, { probeTimeoutMs: 300, probeIntervalMs: 200, maxAgeMs: 200 });
    health = watched;
    const stuck: number[] = [];
    for (let outage = 0; outage < 16; outage++) {
      if (outage % 2 === 0) await proxy.cut();
      else proxy.freeze();
      watched.reportFailure(`outage ${outage}`);
      await pause(500 + (outage % 4) * 130);
      expect(watched.up).toBe(false);
      await proxy.restore();
      if (!(await comesBackWithin(watched, 2500))) stuck.push(outage);
      if (stuck.length > 0) break;
    }
    expect(stuck).toEqual([]);
  }, 90_000);
});
