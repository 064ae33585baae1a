import { Redis } from "ioredis";

/** Redis answers a counter's command in well under a millisecond; a frozen Redis never does. */
const COMMAND_TIMEOUT_MS = 1000;
/** Shorter, so that the silent connection is dropped before a second command is sent on it. */
const SOCKET_TIMEOUT_MS = 900;

/**
 * A connection for counters kept in Redis (rate limits, guessing limits). Commands never wait in a queue, and one
 * that gets no answer in time fails, so the limiters count in memory as they do when Redis is down; the silent
 * connection is then dropped, and until Redis answers again commands fail at once instead of each waiting.
 */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
  redis.on("error", () => {});
  return redis;
}

/** Resolves true once the connection is ready, false after `timeoutMs`. */
export function redisReady(redis: Redis, timeoutMs = 5000): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Whether Redis answers now: a frozen Redis keeps its connection ready, so it is asked (PING, within the timeout). */
export async function redisAnswers(redis: Redis): Promise<boolean> {
  if (redis.status !== "ready") return false;
  return redis.ping().then(
    () => true,
    () => false,
  );
}

export async function closeRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}
