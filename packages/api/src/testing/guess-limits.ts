import { randomBytes } from "node:crypto";
import { afterAll, expect } from "vitest";
import { createGuessLimits, type GuessLimits } from "../auth/guess-limits";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Fresh guess limits in the shared store (Redis, connected as the server waits for it), so each test counts from
 * zero: each call opens a set under a namespace of its own (`<prefix>-<random>`); the file closes them all after its
 * tests.
 */
export function withFreshGuessLimits(prefix: string): () => Promise<GuessLimits> {
  const opened: GuessLimits[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((limits) => limits.close()));
  });
  return async () => {
    const limits = createGuessLimits({ namespace: `${prefix}-${randomBytes(6).toString("hex")}`, redisUrl: REDIS_URL });
    opened.push(limits);
    expect(await limits.ready(5000)).toBe(true);
    return limits;
  };
}
