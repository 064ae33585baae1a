import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimitDecision } from "./rate-limit";
import { closeRedis, connectRedis, redisReady } from "./redis-client";

/**
 * Attempts at something guessable (a password, a user code), counted per key in a window: in memory for one
 * instance, in Redis so that every instance counts against the same window. An attempt is taken before it is judged
 * and given back when it succeeds, so what is counted is failures, and parallel guesses cannot slip past the limit
 * between a check and a count.
 */
export type AttemptLimiter = {
  readonly limit: number;
  readonly windowSeconds: number;
  /** Takes one attempt for the key; refused once the window's attempts are used up. */
  take: (key: string) => Promise<RateLimitDecision>;
  /** Gives a successful attempt back. */
  giveBack: (key: string) => Promise<void>;
  /** Resolves once the shared store is connected (at once in memory); false after a timeout. */
  ready: (timeoutMs?: number) => Promise<boolean>;
  close: () => Promise<void>;
};

export type AttemptLimiterOptions = {
  /** Failed attempts allowed per window. */
  attempts: number;
  windowSeconds: number;
  /** Shared store for several instances; in memory (one instance) when absent. */
  redisUrl?: string;
  /** Separates limiters sharing one Redis. */
  name: string;
};

export function createAttemptLimiter(options: AttemptLimiterOptions): AttemptLimiter {
  const { attempts: points, windowSeconds: duration } = options;
  const keyPrefix = `shelf:attempts:${options.name}`;
  const memory = (prefix: string) => new RateLimiterMemory({ points, duration, keyPrefix: prefix });
  let redis: Redis | undefined;
  let limiter: RateLimiterMemory | RateLimiterRedis;
  if (options.redisUrl) {
    redis = connectRedis(options.redisUrl);
    // Redis down or frozen: counted per instance meanwhile, never let through uncounted.
    limiter = new RateLimiterRedis({
      storeClient: redis,
      points,
      duration,
      keyPrefix,
      insuranceLimiter: memory(`${keyPrefix}:insurance`),
    });
  } else {
    limiter = memory(keyPrefix);
  }

  return {
    limit: points,
    windowSeconds: duration,
    async take(key) {
      try {
        const res = await limiter.consume(key);
        return { allowed: true, limit: points, remaining: res.remainingPoints, retryAfterSeconds: 0 };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        return { allowed: false, limit: points, remaining: 0, retryAfterSeconds };
      }
    },
    async giveBack(key) {
      await limiter.reward(key, 1);
    },
    ready: async (timeoutMs) => (redis ? redisReady(redis, timeoutMs) : true),
    close: async () => {
      if (redis) await closeRedis(redis);
    },
  };
}
