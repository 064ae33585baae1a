import type { Database, Executor } from "@shelf/db";
import type { Logger } from "@shelf/server/log";
import { type Periodic, schedulePeriodic } from "@shelf/server/periodic";
import { sql } from "drizzle-orm";
import { REFRESH_REUSE_GRACE_SECONDS } from "./oauth/refresh";
import { SECURITY_LOG_KEEP_DAYS } from "./security-log";
import { sqlRows } from "./sql-text";

export type PrunedCounts = {
  oauth_codes: number;
  oauth_tokens: number;
  mcp_sessions: number;
  web_sessions: number;
  device_sign_ins: number;
  password_resets: number;
  security_events: number;
};

/**
 * Removes what can no longer be used and has been dead for `keepDays`: authorization codes, access and refresh
 * tokens past their expiry or revoked, MCP sessions ended or idle, web sessions ended or expired, device sign-ins
 * expired, "forgot password" links expired. Within `keepDays` they stay, so that a replayed code or a reused refresh
 * token is still recognised as one (and revokes what it should). Grants and clients stay: they are what the
 * connected-apps page shows. The security log keeps its rows `securityLogDays` (180 by default), then drops them.
 * Spent refresh tokens forget their successor's seed once their grace is over: it only answers parallel refreshes.
 */
export async function pruneExpired(
  db: Executor,
  options: { keepDays?: number; securityLogDays?: number } = {},
): Promise<PrunedCounts> {
  const days = options.keepDays ?? 7;
  const logDays = options.securityLogDays ?? SECURITY_LOG_KEEP_DAYS;
  const before = sql`now() - make_interval(days => ${days})`;
  const count = async (query: ReturnType<typeof sql>) => (await sqlRows<{ id: number }>(db, query)).length;
  // A row a refresh holds right now is skipped, never waited for: the next pass clears it.
  await db.execute(
    sql`update oauth_tokens set successor_seed = null where id in (select id from oauth_tokens
      where successor_seed is not null
        and used_at <= clock_timestamp() - make_interval(secs => ${REFRESH_REUSE_GRACE_SECONDS})
      for update skip locked)`,
  );
  return {
    oauth_codes: await count(sql`delete from oauth_codes where expires_at < ${before} returning id`),
    oauth_tokens: await count(
      sql`delete from oauth_tokens where expires_at < ${before} or revoked_at < ${before} returning id`,
    ),
    mcp_sessions: await count(
      sql`delete from mcp_sessions
        where ended_at < ${before} or last_seen_at < ${before} - interval '1 day' returning id`,
    ),
    web_sessions: await count(
      sql`delete from web_sessions where expires_at < ${before} or revoked_at < ${before} returning id`,
    ),
    device_sign_ins: await count(sql`delete from device_sign_ins where expires_at < ${before} returning id`),
    password_resets: await count(sql`delete from password_resets where expires_at < ${before} returning id`),
    security_events: await count(
      sql`delete from security_events where created_at < now() - make_interval(days => ${logDays}) returning id`,
    ),
  };
}

/** The advisory lock an instance holds while it prunes, so that several instances never prune at once. */
export const HOUSEKEEPING_LOCK = 0x7368_656c; // "shel"

/**
 * One scheduled pass: prunes unless another instance is pruning right now (then `null`: that one does the work).
 * The lock is the transaction's, so it goes with it whatever happens to this process.
 */
export async function pruneIfFree(db: Database, options: { keepDays?: number } = {}): Promise<PrunedCounts | null> {
  return db.transaction(async (tx) => {
    const [lock] = await sqlRows<{ taken: boolean }>(
      tx,
      sql`select pg_try_advisory_xact_lock(${HOUSEKEEPING_LOCK}) as taken`,
    );
    return lock?.taken ? pruneExpired(tx, options) : null;
  });
}

export type Housekeeping = Periodic;

/**
 * Prunes every `intervalMs` from a running server (the operator CLI's `housekeeping` does the same by hand). The
 * first pass comes within a minute; any instance may run it, one at a time. A failed pass is logged and the next one
 * tries again.
 */
export function scheduleHousekeeping(
  db: Database,
  options: { intervalMs: number; keepDays?: number; log: Logger },
): Housekeeping {
  return schedulePeriodic(
    async () => {
      const pruned = await pruneIfFree(db, { keepDays: options.keepDays });
      if (pruned && Object.values(pruned).some((count) => count > 0)) options.log.info({ pruned }, "housekeeping");
    },
    {
      intervalMs: options.intervalMs,
      firstWithinMs: Math.min(options.intervalMs, 60_000),
      log: options.log,
      failure: "housekeeping failed; the next pass tries again",
    },
  );
}
