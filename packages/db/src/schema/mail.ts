import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { belongsToAccount } from "./accounts";
import { identityId, timestampNow } from "./columns";

/** What a queued mail says: a security notice (a row of the security log), or a withdrawal's confirmation. */
export const outboxMailKinds = ["security_notice", "withdrawal_requested"] as const;
export type OutboxMailKind = (typeof outboxMailKinds)[number];

/**
 * Mails to send, written by the transaction that makes the change they tell of, so that a mail goes out exactly when
 * the change was committed (never for one that failed, once for one that a retry did not repeat). A sender takes rows
 * with `FOR UPDATE SKIP LOCKED`, sends and deletes them; the address is kept only until then (a deleted account's
 * last notice goes to the address it had).
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    kind: text().$type<OutboxMailKind>().notNull(),
    recipient: text().notNull(),
    language: text().notNull(),
    /** What the mail shows; never a secret. */
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestampNow(),
    createdAt: timestampNow(),
  },
  (t) => [
    index().on(t.nextAttemptAt),
    check("mail_outbox_language", sql`${t.language} IN ('en', 'ko')`),
    check(
      "mail_outbox_kind",
      sql.raw(`"mail_outbox"."kind" IN (${outboxMailKinds.map((kind) => `'${kind}'`).join(", ")})`),
    ),
  ],
);
