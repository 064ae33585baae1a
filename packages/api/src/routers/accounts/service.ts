import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { SessionCaller } from "../../auth/caller";
import type { SignInLimits } from "../../auth/guess-limits";
import { hashPassword, verifyPassword } from "../../auth/password";
import { endWebSessions } from "../../auth/web-session";
import { DomainError, isUniqueViolation, parseInput, ValidationError } from "../../errors";
import { recordSecurityEvent } from "../../security-log";
import { type AccountRecord, ChangeNameInput, ChangePasswordInput, CreateAccountInput, SignUpInput } from "./schemas";

const { accounts } = schema;

type AccountRow = typeof accounts.$inferSelect;

export function toAccountRecord(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    has_password: row.passwordHash !== null,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * Emails are unique whatever their case (the `accounts_email_lower_key` index); lookups ignore case too. A deleted
 * account is found by nobody (sign-in, password reset, the operator's commands, the demo seed), not even by its
 * placeholder address.
 */
export async function findAccountByEmail(db: Database, email: string): Promise<AccountRow | null> {
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(eq(sql`lower(${accounts.email})`, email.trim().toLowerCase()), isNull(accounts.deletedAt)));
  return row ?? null;
}

export async function requireAccountByEmail(db: Database, email: string): Promise<AccountRow> {
  const account = await findAccountByEmail(db, email);
  if (!account) throw new DomainError("not_found", `No account with the email ${email.trim()}.`);
  return account;
}

export async function createAccount(
  db: Database,
  rawInput: CreateAccountInput,
  /**
   * What sign-up records with the account in the same insert: the acceptance of the terms, and an unverified address.
   * Without it (the operator's `account:create`, the demo), the operator vouches for the address: verified.
   */
  recorded: Pick<
    typeof accounts.$inferInsert,
    "termsAcceptedAt" | "acceptedTermsUrl" | "acceptedPrivacyUrl" | "emailVerifiedAt"
  > = {},
): Promise<AccountRecord> {
  const { email, name, password, language } = parseInput(CreateAccountInput, rawInput);
  const passwordHash = password ? await hashPassword(password) : null;
  try {
    const [row] = await db
      .insert(accounts)
      .values({
        email,
        name: name ?? null,
        passwordHash,
        language: language ?? null,
        emailVerifiedAt: new Date(),
        ...recorded,
      })
      .returning();
    return toAccountRecord(row as AccountRow);
  } catch (error) {
    if (isUniqueViolation(error, "accounts_email_lower_key")) {
      throw new DomainError("conflict", `An account with the email ${email} already exists.`);
    }
    throw error;
  }
}

/** The terms and privacy policy a deployment publishes (`SHELF_TERMS_URL`, `SHELF_PRIVACY_URL`), each optional. */
export type LegalTerms = { termsUrl?: string; privacyUrl?: string };

/**
 * Sign-up from the pages: an email, a password of at least 8 characters, and a name if the person gives one. When the
 * deployment publishes terms or a privacy policy, they must be accepted, and the account records when and which.
 */
export async function signUp(db: Database, rawInput: SignUpInput, legal: LegalTerms = {}): Promise<AccountRecord> {
  const input = parseInput(SignUpInput, rawInput);
  const published = legal.termsUrl !== undefined || legal.privacyUrl !== undefined;
  if (published && input.accept_terms !== true) {
    throw new ValidationError({ accept_terms: ["must be accepted to create an account"] });
  }
  return createAccount(
    db,
    { email: input.email, password: input.password, name: input.name || null, language: input.language ?? null },
    // The address is verified by the link of the mail the pages send next (`sendVerificationMail`).
    published
      ? {
          termsAcceptedAt: new Date(),
          acceptedTermsUrl: legal.termsUrl ?? null,
          acceptedPrivacyUrl: legal.privacyUrl ?? null,
          emailVerifiedAt: null,
        }
      : { emailVerifiedAt: null },
  );
}

export async function getMe(db: Database, accountId: number) {
  const [row] = await db
    .select({ id: accounts.id, email: accounts.email, name: accounts.name, verifiedAt: accounts.emailVerifiedAt })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!row) throw new DomainError("not_found", "Account not found.");
  return { id: row.id, email: row.email, name: row.name, email_verified: row.verifiedAt !== null };
}

/** Changes the signed-in person's name (empty: none). */
export async function changeName(db: Database, accountId: number, rawInput: ChangeNameInput) {
  const { name } = parseInput(ChangeNameInput, rawInput);
  const [row] = await db
    .update(accounts)
    .set({ name: name || null })
    .where(eq(accounts.id, accountId))
    .returning({ id: accounts.id, email: accounts.email, name: accounts.name, verifiedAt: accounts.emailVerifiedAt });
  if (!row) throw new DomainError("not_found", "Account not found.");
  return { id: row.id, email: row.email, name: row.name, email_verified: row.verifiedAt !== null };
}

/**
 * Checks the signed-in person's password before a change that needs it (password, email, deletion). Each check counts
 * like a sign-in attempt against the account, and is given back when right, so the form cannot be used to guess.
 */
export async function checkOwnPassword(
  db: Database,
  limits: SignInLimits,
  accountId: number,
  password: string,
  field = "current_password",
): Promise<void> {
  const [account] = await db
    .select({ passwordHash: accounts.passwordHash })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!account) throw new DomainError("not_found", "Account not found.");
  const key = `account-id:${accountId}`;
  const attempt = await limits.account.take(key);
  if (!attempt.allowed) {
    throw new DomainError("rate_limited", "Too many wrong passwords: try again later.", {
      retry_after_seconds: attempt.retryAfterSeconds,
    });
  }
  if (!account.passwordHash || !(await verifyPassword(password, account.passwordHash))) {
    throw new ValidationError({ [field]: ["is not your current password"] });
  }
  await limits.account.giveBack(key);
}

/**
 * Changes the signed-in person's password after checking the current one (counted like a sign-in attempt), and ends
 * every other session of the account: whoever else was signed in must sign in with the new password.
 */
export async function changePassword(
  db: Database,
  caller: SessionCaller,
  limits: SignInLimits,
  rawInput: ChangePasswordInput,
): Promise<{ ended_sessions: number }> {
  const input = parseInput(ChangePasswordInput, rawInput);
  await checkOwnPassword(db, limits, caller.accountId, input.current_password);
  const passwordHash = await hashPassword(input.new_password);
  return db.transaction(async (tx) => {
    await tx.update(accounts).set({ passwordHash }).where(eq(accounts.id, caller.accountId));
    const ended = await endWebSessions(tx, caller.accountId, { except: caller.sessionId });
    await recordSecurityEvent(tx, {
      accountId: caller.accountId,
      kind: "password_changed",
      detail: { ended_sessions: ended },
    });
    return { ended_sessions: ended };
  });
}
