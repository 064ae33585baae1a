import type { Executor } from "@shelf/db";
import { sql } from "drizzle-orm";
import { parseInput } from "../../errors";
import { isoSql, sqlRows } from "../../sql-text";
import { type SecurityEventData, type SecurityLogData, SecurityLogInput } from "./schemas";

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
