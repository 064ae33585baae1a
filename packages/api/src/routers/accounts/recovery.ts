import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import type { Logger } from "@shelf/server/log";
import type { Mailer } from "@shelf/server/mail/mailer";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { RecoveryLimits } from "../../auth/guess-limits";
import { hashSecret, randomSecret } from "../../auth/key-secret";
import { hashPassword } from "../../auth/password";
import { endWebSessions } from "../../auth/web-session";
import { DomainError, parseInput } from "../../errors";
import type { AnswerLanguage } from "../../language";
import { passwordResetMail } from "../../mail/messages";
import { recordSecurityEvent } from "../../security-log";
import { PasswordResetInput, PasswordResetRequestInput } from "./schemas";
import { findAccountByEmail } from "./service";

const { accounts, passwordResets } = schema;

/** How long a "forgot password" link works. */
export const PASSWORD_RESET_MINUTES = 30;

export type RecoveryDeps = {
  limits: RecoveryLimits;
  mailer: Mailer;
  /** The account pages' public base URL: the link in the mail leads there. */
  baseUrl: string;
  log: Pick<Logger, "error">;
};

function throttled(retryAfterSeconds: number): DomainError {
  return new DomainError("rate_limited", "Too many password reset requests: try again later.", {
    retry_after_seconds: retryAfterSeconds,
  });
}

/**
 * "Forgot password": mails a link that sets a new password, once, within 30 minutes, to the account of the email,
 * if there is one. The answer is the same whether or not there is (nothing returned, the mail sent after the answer),
 * so the form cannot tell who has an account. Requests are counted per email typed and per client address (refused
 * when over, for every email alike) and per account (over it, quietly no mail). A new link ends the ones before it.
 */
export async function requestPasswordReset(
  db: Database,
  deps: RecoveryDeps,
  rawInput: { email: string; address: string; language: AnswerLanguage },
): Promise<void> {
  const { email } = parseInput(PasswordResetRequestInput, { email: rawInput.email });
  const [byEmail, byAddress] = await Promise.all([
    deps.limits.email.take(hashSecret(email.toLowerCase())),
    deps.limits.address.take(rawInput.address),
  ]);
  if (!byEmail.allowed || !byAddress.allowed) {
    throw throttled(Math.max(byEmail.retryAfterSeconds, byAddress.retryAfterSeconds));
  }
  const account = await findAccountByEmail(db, email);
  if (!account) return;
  if (!(await deps.limits.account.take(`account-id:${account.id}`)).allowed) return;
  const secret = randomSecret();
  await db.transaction(async (tx) => {
    // One request of the account at a time, so that only the newest link ever works.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, account.id)).for("update");
    await tx
      .update(passwordResets)
      .set({ usedAt: sql`now()` })
      .where(and(eq(passwordResets.accountId, account.id), isNull(passwordResets.usedAt)));
    await tx.insert(passwordResets).values({
      accountId: account.id,
      tokenHash: hashSecret(secret),
      expiresAt: new Date(Date.now() + PASSWORD_RESET_MINUTES * 60_000),
    });
  });
  const mail = passwordResetMail({
    to: account.email,
    name: account.name,
    language: (account.language as AnswerLanguage | null) ?? rawInput.language,
    // In the fragment: browsers never send it, so it stays out of server logs, proxies and Referer headers.
    link: `${deps.baseUrl}/reset-password#${secret}`,
    minutes: PASSWORD_RESET_MINUTES,
  });
  // Sent after the answer: waiting for the SMTP server would tell, by the time taken, that the account exists.
  void deps.mailer.send(mail).catch((error: unknown) => {
    deps.log.error({ err: error, accountId: account.id }, "the password reset mail could not be sent");
  });
}

/** The conditions under which a link's row still works: this secret, never used, not expired. */
function liveLink(token: string) {
  return and(
    eq(passwordResets.tokenHash, hashSecret(token)),
    isNull(passwordResets.usedAt),
    gt(passwordResets.expiresAt, sql`now()`),
  );
}

/**
 * Whether a "forgot password" link would still set a password, without using it up: the page asks before it shows the
 * form, so that a dead link says so at once instead of after a new password was typed.
 */
export async function resetLinkWorks(db: Database, token: string): Promise<boolean> {
  if (token.length === 0 || token.length > 128) return false;
  const [link] = await db.select({ id: passwordResets.id }).from(passwordResets).where(liveLink(token));
  return link !== undefined;
}

/**
 * Sets a new password from a "forgot password" link, which is then used up: the link, the new password, every session
 * of the account ended and the security log's row are one transaction. A link unknown, expired or used is refused.
 */
export async function resetPassword(
  db: Database,
  rawInput: { token: string; new_password: string },
): Promise<{ account_id: number; email: string; ended_sessions: number }> {
  const input = parseInput(PasswordResetInput, rawInput);
  // Hashed before the transaction: argon2id takes a while, and the link's row stays locked only for the writes.
  const passwordHash = await hashPassword(input.new_password);
  return db.transaction(async (tx) => {
    const [link] = await tx
      .select({ id: passwordResets.id, accountId: passwordResets.accountId, email: accounts.email })
      .from(passwordResets)
      .innerJoin(accounts, eq(accounts.id, passwordResets.accountId))
      .where(liveLink(input.token))
      .for("update", { of: passwordResets });
    if (!link) throw new DomainError("reset_link_invalid");
    await tx.update(passwordResets).set({ usedAt: sql`now()` }).where(eq(passwordResets.id, link.id));
    await tx.update(accounts).set({ passwordHash }).where(eq(accounts.id, link.accountId));
    const ended = await endWebSessions(tx, link.accountId);
    await recordSecurityEvent(tx, {
      accountId: link.accountId,
      kind: "password_reset",
      detail: { ended_sessions: ended },
    });
    return { account_id: link.accountId, email: link.email, ended_sessions: ended };
  });
}
