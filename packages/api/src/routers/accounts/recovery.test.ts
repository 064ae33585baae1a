import { randomBytes } from "node:crypto";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../auth/password";
import { startWebSession, webSessionAccount } from "../../auth/web-session";
import { createAccount } from "../../testing/factories";
import { withFreshGuessLimits } from "../../testing/guess-limits";
import { testLog } from "../../testing/harness";
import { recordSecret } from "../../testing/secrets";
import { securityEventKinds } from "../../testing/security-events";
import { linkIn, withMailer } from "../../testing/smtp";
import { withTestDatabase } from "../../testing/suite";
import { type RecoveryDeps, requestPasswordReset, resetLinkWorks, resetPassword } from "./recovery";

const BASE = "http://shelf.test";

const testDb = withTestDatabase();
const { smtp, mailer } = withMailer();
const freshLimits = withFreshGuessLimits("recovery");

async function deps(): Promise<RecoveryDeps> {
  const limits = await freshLimits();
  return { limits: limits.recovery, mailer, baseUrl: BASE, log: testLog };
}

async function person(language: "en" | "ko" | null = null) {
  const email = `p-${randomBytes(5).toString("hex")}@example.test`;
  return createAccount(testDb.db, { email, passwordHash: await hashPassword("the old password"), language });
}

function tokenOf(link: string): string {
  const token = new URL(link).hash.slice(1);
  recordSecret(token);
  return token;
}

async function resetRows(accountId: number) {
  return testDb.db.select().from(schema.passwordResets).where(eq(schema.passwordResets.accountId, accountId));
}

describe("forgot password", () => {
  it("mails a single-use link through SMTP; following it sets the password and ends every session", async () => {
    const { db } = testDb;
    const account = await person("ko");
    const sessions = await Promise.all([startWebSession(db, account.id), startWebSession(db, account.id)]);
    for (const session of sessions) recordSecret(session.secret);
    await requestPasswordReset(db, await deps(), {
      email: account.email.toUpperCase(),
      address: "192.0.2.1",
      language: "en",
    });
    const mail = await smtp.next(account.email);
    // The account's language wins over the page's.
    expect(mail.subject).toBe("Shelf 비밀번호 재설정");
    const link = linkIn(mail, `${BASE}/reset-password#`);
    expect(mail.html).toContain(link);
    const token = tokenOf(link);
    // Only the hash is stored, and the link lasts 30 minutes.
    const [row] = await resetRows(account.id);
    expect(row?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.tokenHash).not.toContain(token);
    const minutes = ((row?.expiresAt.getTime() ?? 0) - (row?.createdAt.getTime() ?? 0)) / 60_000;
    expect(minutes).toBeCloseTo(30, 0);

    const result = await resetPassword(db, { token, new_password: "a brand new password" });
    expect(result).toMatchObject({ account_id: account.id, ended_sessions: 2 });
    for (const session of sessions) expect(await webSessionAccount(db, session.secret)).toBeNull();
    const [after] = await db.select().from(schema.accounts).where(eq(schema.accounts.id, account.id));
    expect(await verifyPassword("a brand new password", after?.passwordHash as string)).toBe(true);
    expect(await securityEventKinds(db, account.id)).toEqual(["sign_in", "sign_in", "password_reset"]);

    // The link works once.
    await expect(resetPassword(db, { token, new_password: "yet another password" })).rejects.toMatchObject({
      code: "reset_link_invalid",
    });
    const [still] = await db.select().from(schema.accounts).where(eq(schema.accounts.id, account.id));
    expect(still?.passwordHash).toBe(after?.passwordHash);
  });

  it("answers the same for an unknown address, and sends nothing", async () => {
    const before = smtp.received.length;
    await expect(
      requestPasswordReset(testDb.db, await deps(), {
        email: "nobody-here@example.test",
        address: "192.0.2.2",
        language: "en",
      }),
    ).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.received.length).toBe(before);
    await expect(
      requestPasswordReset(testDb.db, await deps(), { email: "not an email", address: "192.0.2.2", language: "en" }),
    ).rejects.toMatchObject({ errors: { email: expect.any(Array) } });
  });

  it("refuses an expired link, a link replaced by a newer one, and a short password (the link then still works), and says which links work before any is used", async () => {
    const { db } = testDb;
    const account = await person();
    const d = await deps();
    await requestPasswordReset(db, d, { email: account.email, address: "192.0.2.3", language: "en" });
    const first = tokenOf(linkIn(await smtp.next(account.email), `${BASE}/reset-password#`));
    await requestPasswordReset(db, d, { email: account.email, address: "192.0.2.3", language: "en" });
    const second = tokenOf(linkIn(await smtp.next(account.email), `${BASE}/reset-password#`));
    expect(second).not.toBe(first);
    // Asked before the form is shown: the replaced link does not work, the newest does, and asking uses nothing up.
    expect(await resetLinkWorks(db, first)).toBe(false);
    expect(await resetLinkWorks(db, second)).toBe(true);
    expect(await resetLinkWorks(db, second)).toBe(true);
    expect(await resetLinkWorks(db, "")).toBe(false);
    expect(await resetLinkWorks(db, "x".repeat(500))).toBe(false);
    await expect(resetPassword(db, { token: first, new_password: "long enough one" })).rejects.toMatchObject({
      code: "reset_link_invalid",
    });
    await expect(resetPassword(db, { token: second, new_password: "short" })).rejects.toMatchObject({
      errors: { new_password: expect.any(Array) },
    });
    await db.execute(
      sql`update password_resets set expires_at = now() - interval '1 second' where account_id = ${account.id}`,
    );
    await expect(resetPassword(db, { token: second, new_password: "long enough one" })).rejects.toMatchObject({
      code: "reset_link_invalid",
    });
    expect(await resetLinkWorks(db, second)).toBe(false);
    await expect(resetPassword(db, { token: "x".repeat(500), new_password: "long enough one" })).rejects.toThrow();
    const [unchanged] = await db.select().from(schema.accounts).where(eq(schema.accounts.id, account.id));
    expect(await verifyPassword("the old password", unchanged?.passwordHash as string)).toBe(true);
  });

  it("uses a link once even when it is followed twice at the same moment", async () => {
    const { db } = testDb;
    const account = await person();
    await requestPasswordReset(db, await deps(), { email: account.email, address: "192.0.2.4", language: "en" });
    const token = tokenOf(linkIn(await smtp.next(account.email), `${BASE}/reset-password#`));
    const results = await Promise.allSettled(
      ["first racer password", "second racer password", "third racer password"].map((new_password) =>
        resetPassword(db, { token, new_password }),
      ),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(
      results
        .filter((result): result is PromiseRejectedResult => result.status === "rejected")
        .map((result) => (result.reason as { code?: string }).code),
    ).toEqual(["reset_link_invalid", "reset_link_invalid"]);
    expect(await securityEventKinds(db, account.id)).toEqual(["password_reset"]);
  });

  it("is throttled in the shared store: per email (refused), per account (quietly no mail), under parallel requests", async () => {
    const { db } = testDb;
    const account = await person();
    const d = await deps();
    const before = smtp.received.filter((mail) => mail.to.includes(account.email)).length;
    // Ten requests at once for the same account, its email spelled in different cases.
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        requestPasswordReset(db, d, {
          email: i % 2 ? account.email.toUpperCase() : ` ${account.email} `,
          address: `198.51.100.${i}`,
          language: "en",
        }),
      ),
    );
    const refused = results.filter((result) => result.status === "rejected");
    expect(results.length - refused.length).toBe(5);
    for (const result of refused) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({
        code: "rate_limited",
        details: { retry_after_seconds: expect.any(Number) },
      });
    }
    // Of the five let through, the account's own limit let three mail; the other two answered the same, sending nothing.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const mails = smtp.received.filter((mail) => mail.to.includes(account.email)).length - before;
    expect(mails).toBe(3);
    // An unknown email is refused at the same point as a known one: the limit tells nothing.
    const unknown = "nobody-else@example.test";
    const unknownResults = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        requestPasswordReset(db, d, { email: unknown, address: `203.0.113.${i}`, language: "en" }),
      ),
    );
    expect(unknownResults.filter((result) => result.status === "rejected")).toHaveLength(1);
    // Per client address: 20 requests an hour, whatever the emails.
    const fromOne = await Promise.allSettled(
      Array.from({ length: 22 }, (_, i) =>
        requestPasswordReset(db, d, { email: `n${i}@example.test`, address: "192.0.2.99", language: "en" }),
      ),
    );
    expect(fromOne.filter((result) => result.status === "rejected")).toHaveLength(2);
    expect((await resetRows(account.id)).filter((row) => row.usedAt === null)).toHaveLength(1);
  });
});
