import { type Database, withDeadline } from "@shelf/db";
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

/**
 * What an edge counts requests with, made once: the host's limiter, the limiters of the routes' own limits (by name),
 * and the database, asked within its deadline for the subject a route's input names.
 */
export type EdgeLimits = { rateLimiter: RateLimiter; own: Map<string, OwnLimit>; db: Database; deadlineMs: number };

/**
 * The rate limits before the route runs: the credential's budget (its key asked only when that budget counts; the
 * address's without one), unless the route counts another way, and the route's own per-address limit. The 429 of
 * the first that is used up, else null; what is left is written into `headers`.
 */
export async function countRequest(
  route: EdgeRoute | undefined,
  limits: EdgeLimits,
  credentialKey: () => string | undefined,
  address: string,
  headers: Record<string, string>,
): Promise<EdgeResult | null> {
  const limit = route?.meta.addressLimit;
  if (!limit?.instead && route?.meta.limitedBy === undefined) {
    const refused = await consumeLimit(limits.rateLimiter, credentialKey() ?? `ip:${address}`, headers);
    if (refused) return refused;
  }
  if (!limit) return null;
  const { limiter, perMinute } = limits.own.get(limit.name) as OwnLimit;
  const message = `At most ${perMinute} of these a minute from one address.`;
  return consumeLimit(limiter, `ip:${address}`, headers, message);
}

/**
 * A route limited by what it is asked for (`meta.limitedBy`: the account an email names) counts against that once
 * its input is read: the subject found within the database deadline, or the client address when it names none.
 */
export async function countSubject(
  route: EdgeRoute,
  input: Record<string, unknown>,
  limits: EdgeLimits,
  address: string,
  headers: Record<string, string>,
): Promise<EdgeResult | null> {
  const { limitedBy } = route.meta;
  if (!limitedBy) return null;
  const subject = await withDeadline(limitedBy(limits.db, input), limits.deadlineMs);
  return consumeLimit(limits.rateLimiter, subject ?? `ip:${address}`, headers);
}
