import { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

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
  /** Resolves once the shared store is connected (at once for the in-memory limiter); false after a timeout. */
  ready: (timeoutMs?: number) => Promise<boolean>;
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

/**
 * A fixed-window limiter from rate-limiter-flexible: in memory, or in Redis so that every instance counts against
 * the same window. Once a key is over its limit, the Redis limiter remembers that locally
 * (`inMemoryBlockOnConsumed`), so a client hammering past its limit costs no Redis round trips; if Redis is
 * unreachable the in-memory insurance limiter keeps limiting per instance instead of failing requests.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const duration = options.windowSeconds ?? 60;
  const keyPrefix = `shelf:rl:${options.name ?? "api"}`;
  const memory = new RateLimiterMemory({ points: options.points, duration, keyPrefix });
  let redis: Redis | null = null;
  let limiter: RateLimiterMemory | RateLimiterRedis = memory;
  if (options.redisUrl) {
    redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    redis.on("error", () => {});
    limiter = new RateLimiterRedis({
      storeClient: redis,
      points: options.points,
      duration,
      keyPrefix,
      inMemoryBlockOnConsumed: options.points + 1,
      inMemoryBlockDuration: duration,
      insuranceLimiter: new RateLimiterMemory({
        points: options.points,
        duration,
        keyPrefix: `${keyPrefix}:insurance`,
      }),
    });
  }
  return {
    limit: options.points,
    async consume(key) {
      try {
        const res = await limiter.consume(key);
        return { allowed: true, limit: options.points, remaining: res.remainingPoints, retryAfterSeconds: 0 };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return {
          allowed: false,
          limit: options.points,
          remaining: 0,
          retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
        };
      }
    },
    async ready(timeoutMs = 5000) {
      const client = redis;
      if (!client || client.status === "ready") return true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        client.once("ready", () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
