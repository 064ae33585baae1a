import type { Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { sql } from "drizzle-orm";
import { parseInput } from "./errors";
import { type SecurityEventData, type SecurityLogData, SecurityLogInput } from "./routers/security-log/schemas";
import { isoSql, sqlRows } from "./sql-text";

/** How long the security log keeps a row: housekeeping deletes older ones. */
export const SECURITY_LOG_KEEP_DAYS = 180;

export type SecurityEvent = {
  accountId: number;
  kind: schema.SecurityEventKind;
  detail?: Record<string, string | number | null>;
  address?: string | null;
};

/**
 * Writes one row of the account's security log. Call it with the transaction that makes the change, so that the row
 * and the change are committed together or not at all.
 */
export async function recordSecurityEvent(db: Executor, event: SecurityEvent): Promise<void> {
  await db.insert(schema.securityEvents).values({
    accountId: event.accountId,
    kind: event.kind,
    detail: event.detail ?? {},
    address: event.address ?? null,
  });
}

/** The account's log, newest first, a page at a time (keyset: `before` is the last id of the page before). */
export async function listSecurityEvents(
  db: Executor,
  accountId: number,
  rawInput: SecurityLogInput = {},
): Promise<SecurityLogData> {
  const input = parseInput(SecurityLogInput, rawInput);
  const rows = await sqlRows<SecurityEventData>(
    db,
    sql`select id, kind, detail, address, ${sql.raw(isoSql("created_at"))} as created_at
      from security_events
      where account_id = ${accountId} ${input.before === undefined ? sql`` : sql`and id < ${input.before}`}
      order by id desc limit ${input.limit + 1}`,
  );
  const events = rows.slice(0, input.limit);
  return {
    events,
    next_before: rows.length > input.limit ? (events[events.length - 1] as SecurityEventData).id : null,
  };
}
