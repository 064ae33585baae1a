import type { Database } from "@shelf/db";
import { sql } from "drizzle-orm";
import { sqlRows } from "./sql-text";

export type PrunedCounts = {
  oauth_codes: number;
  oauth_tokens: number;
  mcp_sessions: number;
  web_sessions: number;
  device_sign_ins: number;
};

/**
 * Removes what can no longer be used and has been dead for `keepDays`: authorization codes, access and refresh
 * tokens past their expiry or revoked, MCP sessions ended or idle, web sessions ended or expired, device sign-ins
 * expired. Within `keepDays` they stay, so that a replayed code or a reused refresh token is still recognised as
 * one (and revokes what it should). Grants and clients stay: they are what the connected-apps page shows.
 */
export async function pruneExpired(db: Database, options: { keepDays?: number } = {}): Promise<PrunedCounts> {
  const days = options.keepDays ?? 7;
  const before = sql`now() - make_interval(days => ${days})`;
  const count = async (query: ReturnType<typeof sql>) => (await sqlRows<{ id: number }>(db, query)).length;
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
  };
}
