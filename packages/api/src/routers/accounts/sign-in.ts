import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq } from "drizzle-orm";
import type { SignInLimits } from "../../auth/guess-limits";
import { hashSecret } from "../../auth/key-secret";
import { hashPassword, needsRehash, verifyPassword } from "../../auth/password";
import { recordSecurityEvent } from "../../security-log";
import { findAccountByEmail } from "./service";

const { accounts } = schema;

export type SignInOutcome =
  | { ok: true; account: { id: number; email: string; name: string | null } }
  | { ok: false; reason: "invalid_credentials" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/** The throttle's name for an email: hashed, so the shared store never holds addresses people typed. */
function accountKey(email: string): string {
  return hashSecret(email.trim().toLowerCase());
}

/** Verified against when no account has the email, so that an unknown email takes as long as a wrong password. */
let decoyHash: Promise<string> | undefined;

/**
 * Checks an email and password. Unknown emails and wrong passwords are the same answer. Each attempt is counted
 * against the email and the client address before the password is looked at, and given back when it succeeds:
 * failures past the limits are refused for the rest of the window, whichever instance they reach, even when sent in
 * parallel. A hash of an older scheme is replaced by an argon2id hash on a successful sign-in.
 */
export async function checkCredentials(
  db: Database,
  limits: SignInLimits,
  input: { email: string; password: string; address: string },
): Promise<SignInOutcome> {
  const keys = { account: accountKey(input.email), address: input.address };
  const [byAccount, byAddress] = await Promise.all([
    limits.account.take(keys.account),
    limits.address.take(keys.address),
  ]);
  const giveBack = async () => {
    await Promise.all([
      byAccount.allowed ? limits.account.giveBack(keys.account) : undefined,
      byAddress.allowed ? limits.address.giveBack(keys.address) : undefined,
    ]);
  };
  if (!byAccount.allowed || !byAddress.allowed) {
    // Refused before it was tried: this attempt counts nowhere.
    await giveBack();
    return {
      ok: false,
      reason: "throttled",
      retryAfterSeconds: Math.max(byAccount.retryAfterSeconds, byAddress.retryAfterSeconds),
    };
  }

  const account = input.email.length <= 254 ? await findAccountByEmail(db, input.email) : null;
  if (!account?.passwordHash) {
    decoyHash ??= hashPassword("not anybody's password");
    await verifyPassword(input.password, await decoyHash);
    return { ok: false, reason: "invalid_credentials" };
  }
  if (!(await verifyPassword(input.password, account.passwordHash))) {
    // A wrong password for an account that exists is the account's business: its security log shows it.
    await recordSecurityEvent(db, { accountId: account.id, kind: "sign_in_failed", address: input.address });
    return { ok: false, reason: "invalid_credentials" };
  }
  await giveBack();
  if (needsRehash(account.passwordHash)) {
    await db
      .update(accounts)
      .set({ passwordHash: await hashPassword(input.password) })
      // Only over the hash just verified: a password changed meanwhile is never overwritten with the old one.
      .where(and(eq(accounts.id, account.id), eq(accounts.passwordHash, account.passwordHash)));
  }
  return { ok: true, account: { id: account.id, email: account.email, name: account.name } };
}
