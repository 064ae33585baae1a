import type { Database } from "@shelf/db";
import { sql } from "drizzle-orm";
import { DomainError } from "../../errors";
import { isoSql, sqlRows } from "../../sql-text";
import type { WebSessionData } from "./schemas";

/**
 * The account's live browser sessions, the current one first, then by last use; where each signed in from comes from
 * its sign-in's row in the security log (the row is written with the session, so every session has one while the
 * log keeps it).
 */
export async function listWebSessions(
  db: Database,
  accountId: number,
  currentSessionId: number,
): Promise<WebSessionData[]> {
  return sqlRows<WebSessionData>(
    db,
    sql`select s.id, s.id = ${currentSessionId} as current,
        ${sql.raw(isoSql("s.created_at"))} as created_at, ${sql.raw(isoSql("s.last_seen_at"))} as last_seen_at,
        ${sql.raw(isoSql("s.expires_at"))} as expires_at, e.address, e.detail->>'user_agent' as user_agent
      from web_sessions s
      left join lateral (
        select address, detail from security_events
        where account_id = s.account_id and kind = 'sign_in' and detail->>'session' = s.id::text
        order by id limit 1
      ) e on true
      where s.account_id = ${accountId} and s.revoked_at is null and s.expires_at > now()
      order by s.id = ${currentSessionId} desc, s.last_seen_at desc, s.id desc`,
  );
}

/** Signs one of the account's sessions out, from its next request on, on every instance. Another's is not found. */
export async function endWebSession(db: Database, accountId: number, sessionId: number): Promise<void> {
  const [row] = await sqlRows<{ id: number }>(
    db,
    sql`update web_sessions set revoked_at = coalesce(revoked_at, now())
      where id = ${sessionId} and account_id = ${accountId} returning id`,
  );
  if (!row) throw new DomainError("not_found", "Session not found.");
}
