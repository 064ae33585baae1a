import type { Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { noticeKind } from "./mail/notices";
import { queueMail } from "./mail/outbox";

/** How long the security log keeps a row: housekeeping deletes older ones. */
export const SECURITY_LOG_KEEP_DAYS = 180;

export type SecurityEvent = {
  accountId: number;
  kind: schema.SecurityEventKind;
  detail?: Record<string, string | number | null>;
  address?: string | null;
  /** Where its notice goes when the account's address is no longer its own (a deletion anonymises it first). */
  recipient?: { email: string; language: string | null; name: string | null };
};

/**
 * Writes one row of the account's security log. Call it with the transaction that makes the change, so that the row
 * and the change are committed together or not at all. A change the person must hear of (a password changed or reset,
 * a key created, a device signed in, the account deleted) queues a notice with the row's copy in the same transaction:
 * one mail per change, never one for a change that was not made.
 */
export async function recordSecurityEvent(db: Executor, event: SecurityEvent): Promise<void> {
  const [row] = await db
    .insert(schema.securityEvents)
    .values({
      accountId: event.accountId,
      kind: event.kind,
      detail: event.detail ?? {},
      address: event.address ?? null,
    })
    .returning();
  if (!row || !noticeKind(row.kind, row.detail)) return;
  const entry = {
    kind: row.kind,
    detail: row.detail,
    address: row.address,
    created_at: row.createdAt.toISOString(),
  };
  await queueMail(db, {
    accountId: event.accountId,
    kind: "security_notice",
    data: event.recipient ? { ...entry, name: event.recipient.name } : entry,
    ...(event.recipient ? { recipient: event.recipient } : {}),
  });
}
