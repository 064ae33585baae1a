import { createRateLimiter, type RateLimiter, readApiEnv } from "@shelf/api";
import { createRestHandler, type RestHandler } from "@shelf/api/rest";
import { createDb } from "@shelf/db";
import { readDbEnv } from "@shelf/db/env";
import { readWebEnv } from "./env";

const GLOBAL_KEY = Symbol.for("shelf.rest-handler");
type Holder = { [GLOBAL_KEY]?: { handler: RestHandler; rateLimiter: RateLimiter } };

/**
 * The REST handler of this process, shared through globalThis: the custom server and Next's route handlers load
 * this module separately (Next bundles its own copy), but one pool and one rate limiter must serve both.
 */
export function getRestHandler(): RestHandler {
  const holder = globalThis as Holder;
  let rest = holder[GLOBAL_KEY];
  if (!rest) {
    const apiEnv = readApiEnv();
    const webEnv = readWebEnv();
    const url = readDbEnv().DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start the app through server.ts, which resolves the database.");
    const { db } = createDb(url, { max: 10 });
    const rateLimiter = createRateLimiter({
      points: apiEnv.SHELF_RATE_LIMIT_PER_MINUTE,
      redisUrl: apiEnv.REDIS_URL,
      name: webEnv.SHELF_RATE_LIMIT_NAMESPACE,
    });
    const handler = createRestHandler({
      db,
      baseUrl: apiEnv.SHELF_BASE_URL,
      trustProxy: apiEnv.SHELF_TRUST_PROXY,
      rateLimiter,
    });
    rest = { handler, rateLimiter };
    holder[GLOBAL_KEY] = rest;
  }
  return rest.handler;
}

/** Waits until the shared rate-limit store answers, so the first requests are counted across instances too. */
export async function waitForRateLimitStore(): Promise<boolean> {
  getRestHandler();
  return (globalThis as Holder)[GLOBAL_KEY]?.rateLimiter.ready() ?? true;
}
