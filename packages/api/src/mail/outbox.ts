import type { Database, Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import type { Logger } from "@shelf/server/log";
import type { Mailer } from "@shelf/server/mail/mailer";
import { type Periodic, schedulePeriodic } from "@shelf/server/periodic";
import { asc, eq, lte, sql } from "drizzle-orm";
import { renderOutboxMail } from "./notices";

const { mailOutbox } = schema;

/** A mail that fails this many times is given up on (and logged): an address that never takes mail, say. */
const MAX_ATTEMPTS = 8;
/** Rows one pass takes at most, each locked until it is sent. */
const BATCH = 20;

export type QueuedMail = {
  accountId: number;
  kind: schema.OutboxMailKind;
  data: Record<string, unknown>;
  /**
   * Where it goes; unset, to the account's address in its language, with the person's name added to `data` as
   * `name` (no mail for a deleted account).
   */
  recipient?: { email: string; language: string | null };
};

/** Queues a mail with the transaction that makes the change it tells of: committed with it, or not at all. */
export async function queueMail(db: Executor, mail: QueuedMail): Promise<void> {
  const data = JSON.stringify(mail.data);
  if (mail.recipient) {
    await db.insert(mailOutbox).values({
      accountId: mail.accountId,
      kind: mail.kind,
      recipient: mail.recipient.email,
      language: mail.recipient.language === "ko" ? "ko" : "en",
      data: mail.data,
    });
    return;
  }
  await db.execute(sql`insert into mail_outbox (account_id, kind, recipient, language, data)
    select id, ${mail.kind}, email, coalesce(language, 'en'), ${data}::jsonb || jsonb_build_object('name', name)
    from accounts
    where id = ${mail.accountId} and deleted_at is null`);
}

export type OutboxDeps = { mailer: Mailer; baseUrl: string; log: Pick<Logger, "error" | "warn"> };

/**
 * One pass over the mails due: each is taken with `FOR UPDATE SKIP LOCKED` (so instances never send the same one),
 * sent, and deleted in the same transaction; one that fails is tried again later, further apart each time. Answers
 * how many rows it took.
 */
export async function deliverOutbox(db: Database, deps: OutboxDeps): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(mailOutbox)
      .where(lte(mailOutbox.nextAttemptAt, sql`now()`))
      .orderBy(asc(mailOutbox.id))
      .limit(BATCH)
      .for("update", { skipLocked: true });
    for (const row of rows) {
      try {
        await deps.mailer.send(renderOutboxMail(row, deps.baseUrl));
        await tx.delete(mailOutbox).where(eq(mailOutbox.id, row.id));
      } catch (error) {
        if (row.attempts + 1 >= MAX_ATTEMPTS) {
          deps.log.error({ err: error, accountId: row.accountId, kind: row.kind }, "a mail was given up on");
          await tx.delete(mailOutbox).where(eq(mailOutbox.id, row.id));
        } else {
          deps.log.warn({ err: error, accountId: row.accountId, kind: row.kind }, "a mail could not be sent yet");
          await tx
            .update(mailOutbox)
            .set({
              attempts: row.attempts + 1,
              nextAttemptAt: sql`now() + make_interval(secs => ${30 * 2 ** row.attempts})`,
            })
            .where(eq(mailOutbox.id, row.id));
        }
      }
    }
    return rows.length;
  });
}

/** Sends queued mail from a running server: a pass every `intervalMs`, taking batches until none is left. */
export function startOutbox(db: Database, deps: OutboxDeps & { log: Logger }, intervalMs = 1000): Periodic {
  return schedulePeriodic(
    async () => {
      while ((await deliverOutbox(db, deps)) === BATCH) {}
    },
    { intervalMs, firstWithinMs: intervalMs, log: deps.log, failure: "the mail outbox pass failed" },
  );
}
