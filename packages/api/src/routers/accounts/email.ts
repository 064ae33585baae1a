import type { Database, Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import type { Logger } from "@shelf/server/log";
import type { Mail, Mailer } from "@shelf/server/mail/mailer";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { RecoveryLimits, SignInLimits } from "../../auth/guess-limits";
import { hashSecret, randomSecret } from "../../auth/key-secret";
import { DomainError, isUniqueViolation, parseInput, ValidationError } from "../../errors";
import type { AnswerLanguage } from "../../language";
import { emailChangedNoticeMail, emailChangeMail, emailVerificationMail } from "../../mail/messages";
import { recordSecurityEvent } from "../../security-log";
import { EmailChangeInput, EmailLinkInput } from "./schemas";
import { checkOwnPassword, findAccountByEmail } from "./service";

const { accounts, emailLinks } = schema;

/** How long the sign-up mail's link works. */
export const EMAIL_VERIFY_HOURS = 24;
/** How long the link mailed to a new address works. */
export const EMAIL_CHANGE_MINUTES = 60;

export type EmailDeps = {
  mailer: Mailer;
  /** The account pages' public base URL: the links in the mails lead there. */
  baseUrl: string;
  log: Pick<Logger, "error">;
  /** Mails per account and hour ("send again", changes of email): the recovery limits' per-account count. */
  limits: Pick<RecoveryLimits, "account">;
};

function languageOf(account: { language: string | null }, fallback: AnswerLanguage): AnswerLanguage {
  return account.language === "ko" || account.language === "en" ? account.language : fallback;
}

/** In the fragment: browsers never send it, so it stays out of server logs, proxies and Referer headers. */
function linkTo(baseUrl: string, secret: string): string {
  return `${baseUrl}/verify-email#${secret}`;
}

/** Sent after the answer: a slow or failing SMTP server neither holds the page nor undoes the change. */
function sendLater(deps: EmailDeps, mail: Mail, accountId: number, what: string): void {
  void deps.mailer.send(mail).catch((error: unknown) => {
    deps.log.error({ err: error, accountId }, `the ${what} mail could not be sent`);
  });
}

async function takeMailAllowance(deps: EmailDeps, key: string): Promise<void> {
  const attempt = await deps.limits.account.take(key);
  if (!attempt.allowed) {
    throw new DomainError("rate_limited", "Too many mails asked for: try again later.", {
      retry_after_seconds: attempt.retryAfterSeconds,
    });
  }
}

/** A new link of the account for `purpose`; the earlier ones of the same purpose stop working. */
async function issueLink(
  tx: Executor,
  accountId: number,
  purpose: schema.EmailLinkPurpose,
  email: string,
  lifetimeMs: number,
): Promise<string> {
  const secret = randomSecret();
  await tx
    .update(emailLinks)
    .set({ usedAt: sql`now()` })
    .where(and(eq(emailLinks.accountId, accountId), eq(emailLinks.purpose, purpose), isNull(emailLinks.usedAt)));
  await tx.insert(emailLinks).values({
    accountId,
    purpose,
    email,
    tokenHash: hashSecret(secret),
    expiresAt: new Date(Date.now() + lifetimeMs),
  });
  return secret;
}

/**
 * Mails the account a link that verifies its address: after sign-up, and on "send again" (counted per account, three
 * an hour with the changes of email, over it refused with the wait). A verified or deleted account gets none.
 */
export async function sendVerificationMail(
  db: Database,
  deps: EmailDeps,
  accountId: number,
  language: AnswerLanguage,
): Promise<{ sent: boolean }> {
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  if (!account || account.deletedAt) throw new DomainError("not_found", "Account not found.");
  if (account.emailVerifiedAt) return { sent: false };
  await takeMailAllowance(deps, `email-mail:${accountId}`);
  const secret = await db.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    return issueLink(tx, accountId, "verify", account.email, EMAIL_VERIFY_HOURS * 3_600_000);
  });
  const mail = emailVerificationMail({
    to: account.email,
    name: account.name,
    language: languageOf(account, language),
    link: linkTo(deps.baseUrl, secret),
    hours: EMAIL_VERIFY_HOURS,
  });
  sendLater(deps, mail, accountId, "verification");
  return { sent: true };
}

/**
 * A change of email, asked for by the signed-in person: the password is checked (counted like a sign-in), then a link
 * goes to the NEW address; the account's address changes only when it is followed (`followEmailLink`). An address
 * another account uses is refused as sign-up refuses it (sign-up already tells whether an address has an account, so
 * this tells nothing more, and only to someone who knows this account's password), and again when the link is
 * followed, in case the address was taken meanwhile.
 */
export async function requestEmailChange(
  db: Database,
  deps: EmailDeps & { signInLimits: SignInLimits },
  accountId: number,
  rawInput: EmailChangeInput & { language: AnswerLanguage },
): Promise<{ email: string }> {
  const input = parseInput(EmailChangeInput, rawInput);
  await checkOwnPassword(db, deps.signInLimits, accountId, input.current_password);
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  if (!account || account.deletedAt) throw new DomainError("not_found", "Account not found.");
  if (account.email.toLowerCase() === input.new_email.toLowerCase()) {
    throw new ValidationError({ new_email: ["is already the email of this account"] });
  }
  if (await findAccountByEmail(db, input.new_email)) {
    throw new ValidationError({ new_email: ["is used by another account"] });
  }
  await takeMailAllowance(deps, `email-mail:${accountId}`);
  const secret = await db.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    return issueLink(tx, accountId, "change", input.new_email, EMAIL_CHANGE_MINUTES * 60_000);
  });
  const mail = emailChangeMail({
    to: input.new_email,
    from: account.email,
    name: account.name,
    language: languageOf(account, rawInput.language),
    link: linkTo(deps.baseUrl, secret),
    minutes: EMAIL_CHANGE_MINUTES,
  });
  sendLater(deps, mail, accountId, "email change");
  return { email: input.new_email };
}

export type FollowedEmailLink = { purpose: schema.EmailLinkPurpose; email: string; previous_email: string };

/**
 * Follows a mailed link, once: a verification marks the address verified; a change makes the new address the
 * account's (and verified), then tells the old address. The link, the account's row and the security log's row are one
 * transaction. A link unknown, expired, used, replaced, of a deleted account, or a verification of an address the
 * account no longer has, is refused. Sessions stay signed in across a change of email, as GitHub does: the change
 * needed the password and the new address, and the old address is told.
 */
export async function followEmailLink(
  db: Database,
  deps: Pick<EmailDeps, "mailer" | "log">,
  rawInput: { token: string; address?: string | null },
): Promise<FollowedEmailLink> {
  const { token } = parseInput(EmailLinkInput, { token: rawInput.token });
  const followed = await db.transaction(async (tx) => {
    const [link] = await tx
      .select({
        id: emailLinks.id,
        accountId: emailLinks.accountId,
        purpose: emailLinks.purpose,
        email: emailLinks.email,
        current: accounts.email,
        name: accounts.name,
        language: accounts.language,
      })
      .from(emailLinks)
      .innerJoin(accounts, eq(accounts.id, emailLinks.accountId))
      .where(
        and(
          eq(emailLinks.tokenHash, hashSecret(token)),
          isNull(emailLinks.usedAt),
          gt(emailLinks.expiresAt, sql`now()`),
          isNull(accounts.deletedAt),
        ),
      )
      .for("update", { of: emailLinks });
    if (!link) throw new DomainError("email_link_invalid");
    await tx.update(emailLinks).set({ usedAt: sql`now()` }).where(eq(emailLinks.id, link.id));
    if (link.purpose === "verify") {
      if (link.email.toLowerCase() !== link.current.toLowerCase()) throw new DomainError("email_link_invalid");
      await tx
        .update(accounts)
        .set({ emailVerifiedAt: sql`coalesce(${accounts.emailVerifiedAt}, now())` })
        .where(eq(accounts.id, link.accountId));
      await recordSecurityEvent(tx, {
        accountId: link.accountId,
        kind: "email_verified",
        detail: { email: link.email },
        address: rawInput.address ?? null,
      });
      return { link, result: { purpose: link.purpose, email: link.email, previous_email: link.current } };
    }
    try {
      await tx
        .update(accounts)
        .set({ email: link.email, emailVerifiedAt: sql`now()` })
        .where(eq(accounts.id, link.accountId));
    } catch (error) {
      // The whole transaction is undone: the account keeps its address, the link is not used up.
      if (isUniqueViolation(error, "accounts_email_lower_key")) {
        throw new DomainError("conflict", "Another account took this address meanwhile: ask for the change again.");
      }
      throw error;
    }
    // Whatever else was pending for the old address (its verification) or another new one ends here.
    await tx
      .update(emailLinks)
      .set({ usedAt: sql`now()` })
      .where(and(eq(emailLinks.accountId, link.accountId), isNull(emailLinks.usedAt)));
    await recordSecurityEvent(tx, {
      accountId: link.accountId,
      kind: "email_changed",
      detail: { from: link.current, to: link.email },
      address: rawInput.address ?? null,
    });
    return { link, result: { purpose: link.purpose, email: link.email, previous_email: link.current } };
  });
  if (followed.result.purpose === "change") {
    const { link } = followed;
    const notice = emailChangedNoticeMail({
      to: link.current,
      newEmail: link.email,
      name: link.name,
      language: languageOf(link, "en"),
    });
    void deps.mailer.send(notice).catch((error: unknown) => {
      deps.log.error({ err: error, accountId: link.accountId }, "the email changed notice could not be sent");
    });
  }
  return followed.result;
}
