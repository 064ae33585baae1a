import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { closeRedis, connectRedis, redisAnswers, redisReady } from "./redis-client";

export type RateLimitDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a request would be allowed again (0 when allowed). */
  retryAfterSeconds: number;
};

export type RateLimiter = {
  readonly limit: number;
  consume: (key: string) => Promise<RateLimitDecision>;
  /** Round trips made to the shared store so far (0 in memory): what leases save. */
  readonly storeCalls: number;
  /** Resolves once the shared store is connected (at once for the in-memory limiter); false after a timeout. */
  ready: (timeoutMs?: number) => Promise<boolean>;
  /** Where the counts live, and whether that store answers now (if not, counts are per instance meanwhile). */
  store: () => Promise<{ mode: "memory" | "redis"; reachable: boolean }>;
  close: () => Promise<void>;
};

export type RateLimiterOptions = {
  /** Requests allowed per window. */
  points: number;
  windowSeconds?: number;
  /** Shared store for several instances; in memory (one instance) when absent. */
  redisUrl?: string;
  /** Separates limiters sharing one Redis (the whole API, error reports, ...). */
  name?: string;
};

type Lease = {
  /** Points reserved in the shared store and not used yet. */
  tokens: number;
  /** What the store said was left after the reservation. */
  remaining: number;
  windowEndsAt: number;
  /** The store refused: the window is used up, refuse locally until it ends. */
  exhausted: boolean;
};

/**
 * A fixed-window limiter from rate-limiter-flexible: in memory (one instance), or in Redis so that every instance
 * counts against the same window.
 *
 * With Redis, an instance reserves points in small leases (about 5% of the limit, at most 100) and serves them
 * from memory, so most requests cost no round trip. Leases are consumed in Redis before they are used, so the limit
 * is never exceeded; an idle instance's unused lease (fewer than a lease's points) only makes the window end a
 * little early. A lease that would overshoot is handed back and the request falls back to consuming one point.
 * Keys far over the limit are blocked in memory until the window ends, and if Redis is unreachable or frozen (see
 * `connectRedis`) the in-memory insurance limiter keeps limiting per instance instead of failing requests.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const duration = options.windowSeconds ?? 60;
  const keyPrefix = `shelf:rl:${options.name ?? "api"}`;
  const points = options.points;
  if (!options.redisUrl) {
    const memory = new RateLimiterMemory({ points, duration, keyPrefix });
    return {
      limit: points,
      storeCalls: 0,
      consume: async (key) => (await consumeOne(memory, key, points)).decision,
      ready: async () => true,
      store: async () => ({ mode: "memory", reachable: true }),
      close: async () => {},
    };
  }

  const leaseSize = Math.min(100, Math.max(1, Math.floor(points / 20)));
  const redis = connectRedis(options.redisUrl);
  const shared = new RateLimiterRedis({
    storeClient: redis,
    points,
    duration,
    keyPrefix,
    // No inMemoryBlockDuration: the block then ends with the store's window. A whole window counted from the moment
    // of blocking outlived it, and this instance kept refusing a key the others served again.
    inMemoryBlockOnConsumed: points + leaseSize,
    insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix: `${keyPrefix}:insurance` }),
  });
  const leases = new Map<string, Lease>();
  let storeCalls = 0;

  /** One store round trip in flight per key and instance: concurrent requests wait for its lease. */
  const inflight = new Map<string, Promise<unknown>>();

  async function consume(key: string): Promise<RateLimitDecision> {
    for (;;) {
      const now = Date.now();
      const lease = leases.get(key);
      const current = lease && lease.windowEndsAt > now ? lease : undefined;
      if (current && current.tokens > 0) {
        current.tokens--;
        return { allowed: true, limit: points, remaining: current.remaining + current.tokens, retryAfterSeconds: 0 };
      }
      if (current?.exhausted) {
        const retryAfterSeconds = Math.max(1, Math.ceil((current.windowEndsAt - now) / 1000));
        return { allowed: false, limit: points, remaining: 0, retryAfterSeconds };
      }
      const pending = inflight.get(key);
      if (pending) {
        await pending;
        continue;
      }
      const refill = refillLease(key, now, current);
      inflight.set(key, refill);
      try {
        return await refill;
      } finally {
        inflight.delete(key);
      }
    }
  }

  /** Reserves a lease (or, near the limit, one point) in Redis; the caller's request takes the first point. */
  async function refillLease(key: string, now: number, current: Lease | undefined): Promise<RateLimitDecision> {
    const size = Math.min(leaseSize, current ? Math.max(current.remaining, 1) : leaseSize);
    if (size > 1) {
      try {
        storeCalls++;
        const res = await shared.consume(key, size);
        remember(key, now, {
          tokens: size - 1,
          remaining: res.remainingPoints,
          windowEndsAt: now + res.msBeforeNext,
          exhausted: false,
        });
        return { allowed: true, limit: points, remaining: res.remainingPoints + size - 1, retryAfterSeconds: 0 };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        storeCalls++;
        await shared.reward(key, size);
      }
    }
    storeCalls++;
    const { decision, msBeforeNext } = await consumeOne(shared, key, points);
    remember(key, now, {
      tokens: 0,
      remaining: decision.remaining,
      windowEndsAt: now + msBeforeNext,
      exhausted: !decision.allowed,
    });
    return decision;
  }

  /** Keeps a key's lease; past 10,000 keys, leases of ended windows are dropped so the map stays bounded. */
  function remember(key: string, now: number, lease: Lease) {
    leases.set(key, lease);
    if (leases.size > 10_000) {
      for (const [other, { windowEndsAt }] of leases) if (windowEndsAt <= now) leases.delete(other);
    }
  }

  return {
    limit: points,
    get storeCalls() {
      return storeCalls;
    },
    consume,
    store: async () => ({ mode: "redis", reachable: await redisAnswers(redis) }),
    ready: (timeoutMs) => redisReady(redis, timeoutMs),
    close: () => closeRedis(redis),
  };
}

async function consumeOne(
  limiter: RateLimiterMemory | RateLimiterRedis,
  key: string,
  points: number,
): Promise<{ decision: RateLimitDecision; msBeforeNext: number }> {
  try {
    const res = await limiter.consume(key);
    return {
      decision: { allowed: true, limit: points, remaining: res.remainingPoints, retryAfterSeconds: 0 },
      msBeforeNext: res.msBeforeNext,
    };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    return {
      decision: { allowed: false, limit: points, remaining: 0, retryAfterSeconds },
      msBeforeNext: rejection.msBeforeNext,
    };
  }
}
