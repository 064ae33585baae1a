import { createRateLimiter, type RateLimiter } from "../rate-limit";
import { type EdgeResult, errorResult } from "./results";
import type { EdgeRoute } from "./routes";

/** A route's own per-address limit (`meta.addressLimit`) and its limiter. */
export type OwnLimit = { limiter: RateLimiter; perMinute: number };

/**
 * The limiters of the routes' own limits, one per name, made when the edge is made so that a shared store (Redis)
 * is connected before requests come: by `make` (the server's, sharing the main limiter's store), else in memory; a
 * deployment's own value of a limit (`limits`, by name) over the route's.
 */
export function ownLimits(
  routes: readonly EdgeRoute[],
  make: ((name: string, perMinute: number) => RateLimiter) | undefined,
  limits: Record<string, number> | undefined,
): Map<string, OwnLimit> {
  const own = new Map<string, OwnLimit>();
  for (const route of routes) {
    const limit = route.meta.addressLimit;
    if (limit && !own.has(limit.name)) {
      const perMinute = limits?.[limit.name] ?? limit.perMinute;
      own.set(limit.name, {
        limiter: make?.(limit.name, perMinute) ?? createRateLimiter({ points: perMinute, name: limit.name }),
        perMinute,
      });
    }
  }
  return own;
}

/**
 * Counts a request against a key's budget, writing what is left into `headers`; the 429 to answer when the budget is
 * used up (with `Retry-After`), else null.
 */
export async function consumeLimit(
  limiter: RateLimiter,
  key: string,
  headers: Record<string, string>,
  message?: string,
): Promise<EdgeResult | null> {
  const decision = await limiter.consume(key);
  headers["x-ratelimit-limit"] = String(decision.limit);
  headers["x-ratelimit-remaining"] = String(decision.remaining);
  if (decision.allowed) return null;
  return errorResult("rate_limited", message, { ...headers, "retry-after": String(decision.retryAfterSeconds) });
}
