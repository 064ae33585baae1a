import { randomBytes } from "node:crypto";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { SignInLimits } from "../../auth/guess-limits";
import { endWebSessions } from "../../auth/web-session";
import { DomainError, parseInput, ValidationError } from "../../errors";
import { recordSecurityEvent } from "../../security-log";
import { sqlRows } from "../../sql-text";
import { DeleteAccountInput } from "./schemas";
import { checkOwnPassword } from "./service";

const { accounts } = schema;

/** The domain of a deleted account's placeholder address: `.invalid` is reserved (RFC 2606), no mail can reach it. */
export const DELETED_EMAIL_DOMAIN = "deleted.invalid";

export type DeletedAccount = {
  account_id: number;
  revoked_keys: number;
  ended_sessions: number;
  revoked_apps: number;
  released_seats: number;
  cancelled_subscriptions: number;
  removed_cards: number;
  kept_orders: number;
  kept_invoices: number;
};

/**
 * Deletes the signed-in person's account, after the password and the account's email typed again. Orders and invoices
 * are sales records the seller must keep (tax retention), so the account's row is not deleted but anonymised, and
 * everything that lets anyone act as the account ends, in ONE transaction:
 * - the email becomes a unique placeholder at `deleted.invalid` (the address can sign up again), the name is cleared,
 *   the password hash removed (signing in as it fails like a wrong password), `deleted_at` set;
 * - every API key (device sign-in keys included) revoked, device sign-ins not yet collected denied, every browser
 *   session and MCP session ended, every connected app's grant and tokens revoked;
 * - devices and their seats released (seats freed), subscriptions cancelled at once (no renewal), cards removed,
 *   pending email and password links removed;
 * - orders and invoices kept, linked to the anonymised account;
 * - the security log emptied but for one final `account_deleted` row.
 */
export async function deleteAccount(
  db: Database,
  limits: SignInLimits,
  accountId: number,
  rawInput: DeleteAccountInput,
): Promise<DeletedAccount> {
  const input = parseInput(DeleteAccountInput, rawInput);
  await checkOwnPassword(db, limits, accountId, input.current_password);
  return db.transaction(async (tx) => {
    const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for("update");
    if (!account || account.deletedAt) throw new DomainError("not_found", "Account not found.");
    if (input.confirm_email.toLowerCase() !== account.email.toLowerCase()) {
      throw new ValidationError({ confirm_email: ["does not match the email of this account"] });
    }
    const count = async (statement: ReturnType<typeof sql>) => (await sqlRows<{ id: number }>(tx, statement)).length;
    await tx
      .update(accounts)
      .set({
        email: `deleted-${accountId}-${randomBytes(6).toString("hex")}@${DELETED_EMAIL_DOMAIN}`,
        name: null,
        passwordHash: null,
        emailVerifiedAt: null,
        termsAcceptedAt: null,
        acceptedTermsUrl: null,
        acceptedPrivacyUrl: null,
        deletedAt: sql`now()`,
      })
      .where(and(eq(accounts.id, accountId), isNull(accounts.deletedAt)));
    const revokedKeys = await count(
      sql`update api_keys set revoked_at = now() where account_id = ${accountId} and revoked_at is null returning id`,
    );
    await tx.execute(
      sql`update device_sign_ins set status = 'denied', decided_at = now()
        where account_id = ${accountId} and status = 'approved'`,
    );
    const endedSessions = await endWebSessions(tx, accountId);
    await tx.execute(
      sql`update mcp_sessions set ended_at = now() where account_id = ${accountId} and ended_at is null`,
    );
    const revokedApps = await count(
      sql`update oauth_grants set revoked_at = now() where account_id = ${accountId} and revoked_at is null returning id`,
    );
    await tx.execute(
      sql`update oauth_tokens set revoked_at = now()
        where grant_id in (select id from oauth_grants where account_id = ${accountId}) and revoked_at is null`,
    );
    await tx.execute(
      sql`delete from oauth_codes where grant_id in (select id from oauth_grants where account_id = ${accountId})`,
    );
    const releasedSeats = await count(sql`delete from device_activations where account_id = ${accountId} returning id`);
    // The devices' names are the person's words: gone with the seats.
    await tx.execute(sql`delete from devices where account_id = ${accountId}`);
    const cancelled = await count(
      sql`update subscriptions set status = 'cancelled', cancelled_at = now(), cancel_at_period_end = false,
          renewal_amount_cents = null, renewal_currency = null, payment_method_id = null,
          ends_at = case when ends_at is null or ends_at > now() then greatest(now(), starts_at + interval '1 second')
            else ends_at end
        where account_id = ${accountId} and status not in ('cancelled', 'expired') returning id`,
    );
    const removedCards = await count(sql`delete from payment_methods where account_id = ${accountId} returning id`);
    await tx.execute(sql`delete from password_resets where account_id = ${accountId}`);
    await tx.execute(sql`delete from email_links where account_id = ${accountId}`);
    await tx.execute(sql`delete from security_events where account_id = ${accountId}`);
    const [kept] = await sqlRows<{ orders: number; invoices: number }>(
      tx,
      sql`select (select count(*) from orders where account_id = ${accountId})::int as orders,
        (select count(*) from invoices where account_id = ${accountId})::int as invoices`,
    );
    const result: DeletedAccount = {
      account_id: accountId,
      revoked_keys: revokedKeys,
      ended_sessions: endedSessions,
      revoked_apps: revokedApps,
      released_seats: releasedSeats,
      cancelled_subscriptions: cancelled,
      removed_cards: removedCards,
      kept_orders: kept?.orders ?? 0,
      kept_invoices: kept?.invoices ?? 0,
    };
    const { account_id: _, ...detail } = result;
    // Its notice goes to the address the account had, in its language: the row now holds a placeholder.
    await recordSecurityEvent(tx, {
      accountId,
      kind: "account_deleted",
      detail,
      recipient: { email: account.email, language: account.language, name: account.name },
    });
    return result;
  });
}
