import { randomBytes } from "node:crypto";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { GuessLimits } from "../../auth/guess-limits";
import { hashSecret } from "../../auth/key-secret";
import { hashPassword } from "../../auth/password";
import { startWebSession, webSessionAccount } from "../../auth/web-session";
import { createAccount } from "../../testing/factories";
import { withFreshGuessLimits } from "../../testing/guess-limits";
import { testLog } from "../../testing/harness";
import { recordSecret } from "../../testing/secrets";
import { securityEventKinds } from "../../testing/security-events";
import { linkIn, withMailer } from "../../testing/smtp";
import { withTestDatabase } from "../../testing/suite";
import { type EmailDeps, followEmailLink, requestEmailChange, sendVerificationMail } from "./email";
import { signUp } from "./service";

const BASE = "http://shelf.test";
const PASSWORD = "correct horse battery staple";
const LINK = `${BASE}/verify-email#`;

const testDb = withTestDatabase();
const { smtp, mailer } = withMailer();
const freshLimits = withFreshGuessLimits("email");

async function deps(): Promise<EmailDeps & { signInLimits: GuessLimits["signIn"] }> {
  const limits = await freshLimits();
  return { limits: limits.recovery, signInLimits: limits.signIn, mailer, baseUrl: BASE, log: testLog };
}

const newEmail = () => `e-${randomBytes(5).toString("hex")}@example.test`;

function tokenOf(link: string): string {
  const token = new URL(link).hash.slice(1);
  recordSecret(token);
  return token;
}

async function accountRow(id: number) {
  const [row] = await testDb.db.select().from(schema.accounts).where(eq(schema.accounts.id, id));
  return row as typeof schema.accounts.$inferSelect;
}

const kinds = (accountId: number) => securityEventKinds(testDb.db, accountId);

async function verifiedPerson(language: "en" | "ko" | null = null) {
  return createAccount(testDb.db, {
    email: newEmail(),
    passwordHash: await hashPassword(PASSWORD),
    language,
    emailVerifiedAt: new Date(),
  });
}

/** Asks, in English, to move the account to a new address, and returns the address and the mailed link's token. */
async function askToChangeEmail(d: Awaited<ReturnType<typeof deps>>, accountId: number) {
  const target = newEmail();
  await requestEmailChange(testDb.db, d, accountId, { current_password: PASSWORD, new_email: target, language: "en" });
  return { target, token: tokenOf(linkIn(await smtp.next(target), LINK)) };
}

describe("email verification at sign-up", () => {
  it("signs up unverified; the mailed single-use link verifies the address and writes the log", async () => {
    const { db } = testDb;
    const d = await deps();
    const account = await signUp(db, { email: newEmail(), password: PASSWORD, language: "ko" });
    expect((await accountRow(account.id)).emailVerifiedAt).toBeNull();
    expect(await sendVerificationMail(db, d, account.id, "en")).toEqual({ sent: true });
    const mail = await smtp.next(account.email);
    // The account's language (the page's at sign-up), plain text and HTML.
    expect(mail.subject).toBe("Shelf 이메일 주소 확인");
    const link = linkIn(mail, LINK);
    expect(mail.html).toContain(link);
    const token = tokenOf(link);
    const [row] = await db.select().from(schema.emailLinks).where(eq(schema.emailLinks.accountId, account.id));
    expect(row?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.tokenHash).not.toContain(token);
    expect(((row?.expiresAt.getTime() ?? 0) - (row?.createdAt.getTime() ?? 0)) / 3_600_000).toBeCloseTo(24, 0);

    expect(await followEmailLink(db, d, { token, address: "192.0.2.10" })).toMatchObject({
      purpose: "verify",
      email: account.email,
    });
    expect((await accountRow(account.id)).emailVerifiedAt).toBeInstanceOf(Date);
    expect(await kinds(account.id)).toEqual(["email_verified"]);
    await expect(followEmailLink(db, d, { token })).rejects.toMatchObject({ code: "email_link_invalid" });
    // Verified: "send again" sends nothing.
    expect(await sendVerificationMail(db, d, account.id, "en")).toEqual({ sent: false });
  });

  it("sends again at most three times an hour, each new link ending the one before", async () => {
    const { db } = testDb;
    const d = await deps();
    const account = await signUp(db, { email: newEmail(), password: PASSWORD });
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      await sendVerificationMail(db, d, account.id, "en");
      const mail = await smtp.next(account.email);
      expect(mail.subject).toBe("Verify your Shelf email address");
      tokens.push(tokenOf(linkIn(mail, LINK)));
    }
    await expect(sendVerificationMail(db, d, account.id, "en")).rejects.toMatchObject({
      code: "rate_limited",
      details: { retry_after_seconds: expect.any(Number) },
    });
    await expect(followEmailLink(db, d, { token: tokens[0] as string })).rejects.toMatchObject({
      code: "email_link_invalid",
    });
    await db.execute(
      sql`update email_links set expires_at = now() - interval '1 second' where token_hash = ${hashSecret(tokens[2] as string)}`,
    );
    await expect(followEmailLink(db, d, { token: tokens[2] as string })).rejects.toMatchObject({
      code: "email_link_invalid",
    });
    expect((await accountRow(account.id)).emailVerifiedAt).toBeNull();
    await expect(followEmailLink(db, d, { token: "x".repeat(500) })).rejects.toMatchObject({
      errors: { token: expect.any(Array) },
    });
  });

  it("accounts the operator creates (and those from before) are verified", async () => {
    const { createAccount: operatorCreate } = await import("./service");
    const account = await operatorCreate(testDb.db, { email: newEmail(), password: PASSWORD });
    expect((await accountRow(account.id)).emailVerifiedAt).toBeInstanceOf(Date);
  });
});

describe("change of email", () => {
  it("needs the password, mails the new address, changes only when followed, tells the old address", async () => {
    const { db } = testDb;
    const d = await deps();
    const account = await verifiedPerson("en");
    const session = await startWebSession(db, account.id);
    recordSecret(session.secret);
    const target = newEmail();
    await expect(
      requestEmailChange(db, d, account.id, { current_password: "wrong one", new_email: target, language: "en" }),
    ).rejects.toMatchObject({ errors: { current_password: expect.any(Array) } });
    await expect(
      requestEmailChange(db, d, account.id, {
        current_password: PASSWORD,
        new_email: account.email.toUpperCase(),
        language: "en",
      }),
    ).rejects.toMatchObject({ errors: { new_email: ["is already the email of this account"] } });
    const other = await verifiedPerson();
    await expect(
      requestEmailChange(db, d, account.id, { current_password: PASSWORD, new_email: other.email, language: "en" }),
    ).rejects.toMatchObject({ errors: { new_email: ["is used by another account"] } });
    await expect(
      requestEmailChange(db, d, account.id, { current_password: PASSWORD, new_email: "not an email", language: "en" }),
    ).rejects.toMatchObject({ errors: { new_email: expect.any(Array) } });

    await requestEmailChange(db, d, account.id, { current_password: PASSWORD, new_email: target, language: "ko" });
    const mail = await smtp.next(target);
    expect(mail.subject).toBe("Confirm your new Shelf email address");
    expect(mail.text).toContain(account.email);
    const token = tokenOf(linkIn(mail, LINK));
    // Nothing changed yet, and the old address got nothing.
    expect((await accountRow(account.id)).email).toBe(account.email);
    expect(await kinds(account.id)).toEqual(["sign_in"]);

    expect(await followEmailLink(db, d, { token })).toEqual({
      purpose: "change",
      email: target,
      previous_email: account.email,
    });
    const after = await accountRow(account.id);
    expect(after.email).toBe(target);
    expect(after.emailVerifiedAt).toBeInstanceOf(Date);
    const notice = await smtp.next(account.email);
    expect(notice.subject).toBe("The email of your Shelf account was changed");
    expect(notice.text).toContain(target);
    expect(notice.text).not.toContain(LINK);
    const log = await db
      .select({ kind: schema.securityEvents.kind, detail: schema.securityEvents.detail })
      .from(schema.securityEvents)
      .where(eq(schema.securityEvents.accountId, account.id))
      .orderBy(schema.securityEvents.id);
    expect(log.at(-1)).toEqual({ kind: "email_changed", detail: { from: account.email, to: target } });
    // Sessions stay signed in (as GitHub does), under the new address.
    expect(await webSessionAccount(db, session.secret)).toMatchObject({ accountId: account.id, email: target });
    await expect(followEmailLink(db, d, { token })).rejects.toMatchObject({ code: "email_link_invalid" });
  });

  it("refuses the change when another account took the address meanwhile, and changes nothing", async () => {
    const { db } = testDb;
    const d = await deps();
    const account = await verifiedPerson();
    const { target, token } = await askToChangeEmail(d, account.id);
    await signUp(db, { email: target.toUpperCase(), password: PASSWORD });
    await expect(followEmailLink(db, d, { token })).rejects.toMatchObject({ code: "conflict" });
    expect((await accountRow(account.id)).email).toBe(account.email);
    expect(await kinds(account.id)).toEqual([]);
  });

  it("a verification link of the old address no longer works once the address changed", async () => {
    const { db } = testDb;
    const d = await deps();
    const account = await signUp(db, { email: newEmail(), password: PASSWORD });
    await sendVerificationMail(db, d, account.id, "en");
    const verify = tokenOf(linkIn(await smtp.next(account.email), LINK));
    const { target, token } = await askToChangeEmail(d, account.id);
    await followEmailLink(db, d, { token });
    await expect(followEmailLink(db, d, { token: verify })).rejects.toMatchObject({ code: "email_link_invalid" });
    expect((await accountRow(account.id)).email).toBe(target);
  });

  it("a change that cannot write its log row does not happen", async () => {
    const { db } = testDb;
    const d = await deps();
    const account = await verifiedPerson();
    const { target, token } = await askToChangeEmail(d, account.id);
    await db.execute(sql`create or replace function refuse_email_event() returns trigger language plpgsql as
      $$ begin raise exception 'security log refused'; end $$`);
    await db.execute(sql`create trigger refuse_email_event before insert on security_events
      for each row execute function refuse_email_event()`);
    try {
      await expect(followEmailLink(db, d, { token })).rejects.toThrow();
    } finally {
      await db.execute(sql`drop trigger refuse_email_event on security_events`);
    }
    expect((await accountRow(account.id)).email).toBe(account.email);
    // The link was not used up by the failed attempt.
    expect(await followEmailLink(db, d, { token })).toMatchObject({ purpose: "change", email: target });
  });
});
