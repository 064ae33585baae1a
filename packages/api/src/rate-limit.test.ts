import { randomBytes } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createAttemptLimiter } from "@shelf/server/attempt-limit";
import { createRateLimiter, type RateLimiter } from "@shelf/server/rate-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey, createApiClient } from "./testing";
import { startPrivateRedis } from "./testing/private-redis";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

describe("rate limit", () => {
  it("answers 429 with Retry-After past the limit, per key", async () => {
    const limiter = createRateLimiter({ points: 3 });
    const request = createApiClient(testDb.db, { rateLimiter: limiter });
    const first = await createAccountWithKey(testDb.db);
    const second = await createAccountWithKey(testDb.db);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request("/api/library", { key: first.key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await request("/api/library", { key: first.key });
    expect(limited.body).toEqual({ message: expect.any(String), error: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await request("/api/library", { key: second.key })).status).toBe(200);
  });

  it("limits requests without a key per client address", async () => {
    const request = createApiClient(testDb.db, { rateLimiter: createRateLimiter({ points: 2 }) });
    const from = (clientAddress: string) => request("/api/library", { clientAddress }).then((r) => r.status);
    expect([await from("198.51.100.1"), await from("198.51.100.1"), await from("198.51.100.1")]).toEqual([
      401, 401, 429,
    ]);
    expect(await from("198.51.100.2")).toBe(401);
  });

  it("serves most requests from leases without going over the limit across instances", async () => {
    const name = `test-${randomBytes(4).toString("hex")}`;
    const instances = [
      createRateLimiter({ points: 60, redisUrl: REDIS_URL, name }),
      createRateLimiter({ points: 60, redisUrl: REDIS_URL, name }),
    ];
    try {
      expect(await Promise.all(instances.map((instance) => instance.ready()))).toEqual([true, true]);
      const decisions = [];
      for (let i = 0; i < 80; i++)
        decisions.push(await (instances[i % 2] as (typeof instances)[number]).consume("key:7"));
      const allowed = decisions.filter((decision) => decision.allowed).length;
      // Leases of 3 points: never over 60; at most 2 points stranded per instance.
      expect(allowed).toBeLessThanOrEqual(60);
      expect(allowed).toBeGreaterThanOrEqual(56);
      expect(decisions.slice(-5).every((decision) => !decision.allowed)).toBe(true);
      const storeCalls = instances.reduce((sum, instance) => sum + instance.storeCalls, 0);
      expect(storeCalls).toBeLessThan(60);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  it("keeps the limit under parallel requests on several instances", async () => {
    const name = `test-${randomBytes(4).toString("hex")}`;
    const instances = Array.from({ length: 3 }, () => createRateLimiter({ points: 100, redisUrl: REDIS_URL, name }));
    try {
      await Promise.all(instances.map((instance) => instance.ready()));
      const decisions = await Promise.all(
        Array.from({ length: 150 }, (_, i) => (instances[i % 3] as (typeof instances)[number]).consume("key:8")),
      );
      const allowed = decisions.filter((decision) => decision.allowed).length;
      expect(allowed).toBeLessThanOrEqual(100);
      expect(allowed).toBeGreaterThanOrEqual(100 - 3 * 4);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  it("shares one window between instances through Redis", async () => {
    const name = `test-${randomBytes(4).toString("hex")}`;
    const instances = [
      createRateLimiter({ points: 5, redisUrl: REDIS_URL, name }),
      createRateLimiter({ points: 5, redisUrl: REDIS_URL, name }),
    ];
    try {
      expect(await Promise.all(instances.map((instance) => instance.ready()))).toEqual([true, true]);
      const decisions = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (instances[i % 2] as (typeof instances)[number]).consume("key:1")),
      );
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
      expect(decisions.filter((decision) => !decision.allowed)).toHaveLength(3);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  it("lets every instance through again as soon as the shared window ends", async () => {
    const name = `test-${randomBytes(4).toString("hex")}`;
    const [quiet, busy] = [0, 1].map(() =>
      createRateLimiter({ points: 2, windowSeconds: 2, redisUrl: REDIS_URL, name }),
    ) as [RateLimiter, RateLimiter];
    try {
      expect(await Promise.all([quiet.ready(), busy.ready()])).toEqual([true, true]);
      const windowStart = Date.now();
      expect((await quiet.consume("key:9")).allowed).toBe(true);
      // Half-way through the window one instance is hammered far past the limit.
      await pause(1000);
      const hammered = [];
      for (let i = 0; i < 6; i++) hammered.push((await busy.consume("key:9")).allowed);
      expect(hammered).toEqual([true, false, false, false, false, false]);
      await pause(windowStart + 2300 - Date.now());
      expect((await quiet.consume("key:9")).allowed).toBe(true);
      expect((await busy.consume("key:9")).allowed).toBe(true);
    } finally {
      await Promise.all([quiet.close(), busy.close()]);
    }
  });
});

describe("a frozen Redis", () => {
  let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(() => redis?.stop());

  /** A hang fails the test with what it was waiting for, instead of running into the test's own time limit. */
  async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function answersAgainWithin(limiter: RateLimiter, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (!(await limiter.store()).reachable && Date.now() < until) await pause(100);
    return (await limiter.store()).reachable;
  }

  it("limits keyed requests in memory within a second, reports Redis down, and uses it again once thawed", async () => {
    const limiter = createRateLimiter({ points: 3, redisUrl: redis.url, name: "frozen" });
    const holder = await createAccountWithKey(testDb.db);
    const request = createApiClient(testDb.db, { rateLimiter: limiter });
    try {
      expect(await limiter.ready()).toBe(true);
      expect(await limiter.store()).toEqual({ mode: "redis", reachable: true });
      redis.freeze();
      const started = Date.now();
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await within(3000, "a keyed request", request("/api/library", { key: holder.key }))).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Date.now() - started).toBeLessThan(2500);
      expect(await within(3000, "the store's state", limiter.store())).toEqual({ mode: "redis", reachable: false });
      redis.thaw();
      expect(await answersAgainWithin(limiter, 5000)).toBe(true);
      const callsBefore = limiter.storeCalls;
      expect((await limiter.consume("key:after-thaw")).allowed).toBe(true);
      expect(limiter.storeCalls).toBeGreaterThan(callsBefore);
    } finally {
      redis.thaw();
      await limiter.close();
    }
  });

  it("counts guesses in memory within a second", async () => {
    const limiter = createAttemptLimiter({ attempts: 2, windowSeconds: 60, redisUrl: redis.url, name: "frozen" });
    try {
      expect(await limiter.ready()).toBe(true);
      redis.freeze();
      const started = Date.now();
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push((await within(3000, "a guess", limiter.take("account:1"))).allowed);
      expect(decisions).toEqual([true, true, false]);
      await within(3000, "a guess given back", limiter.giveBack("account:1"));
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      redis.thaw();
      await limiter.close();
    }
  });
});
