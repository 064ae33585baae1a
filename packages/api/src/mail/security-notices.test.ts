import { schema } from "@shelf/db";
import { createMailer } from "@shelf/server/mail/mailer";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createGuessLimits } from "../auth/guess-limits";
import { createApiKey } from "../auth/key-issuing";
import { hashSecret, randomSecret } from "../auth/key-secret";
import { hashPassword } from "../auth/password";
import { deleteAccount } from "../routers/accounts/deletion";
import { resetPassword } from "../routers/accounts/recovery";
import { createAccount, createKey } from "../testing/factories";
import { signedInCaller, TEST_BASE_URL, testLog } from "../testing/harness";
import { recordSecret } from "../testing/secrets";
import { type ReceivedMail, withMailer } from "../testing/smtp";
import { withTestDatabase } from "../testing/suite";
import { deliverOutbox } from "./outbox";

const testDb = withTestDatabase();
const { smtp, mailer } = withMailer();

const PASSWORD = "the first password";
const deps = () => ({ mailer, baseUrl: TEST_BASE_URL, log: testLog });

/** Sends what is queued as two instances would, at once, until nothing is left. */
async function deliverAll(): Promise<void> {
  for (;;) {
    const taken = await Promise.all([deliverOutbox(testDb.db, deps()), deliverOutbox(testDb.db, deps())]);
    if (taken.every((n) => n === 0)) return;
  }
}

async function person(language: "en" | "ko") {
  const email = `n-${randomSecret().slice(0, 10).toLowerCase()}@example.test`;
  return createAccount(testDb.db, { email, name: "Ann", language, passwordHash: await hashPassword(PASSWORD) });
}

async function namedKey(accountId: number, name: string) {
  recordSecret((await createApiKey(testDb.db, { accountId, name }, "shelf")).key);
}

const mailsTo = (email: string): ReceivedMail[] => smtp.received.filter((mail) => mail.to.includes(email));

async function logRows(accountId: number) {
  return testDb.db
    .select()
    .from(schema.securityEvents)
    .where(eq(schema.securityEvents.accountId, accountId))
    .orderBy(schema.securityEvents.id);
}

describe("security notices", () => {
  it("mails a changed password, a created key and a new device once each, in the account's language, with the log entry", async () => {
    const account = await person("ko");
    const { caller } = await signedInCaller(testDb.db, account.id);
    await caller.account.changePassword({ current_password: PASSWORD, new_password: "the second password" });
    // The same form sent again: refused (the password is no longer the current one), and nothing more is mailed.
    await expect(
      caller.account.changePassword({ current_password: PASSWORD, new_password: "the second password" }),
    ).rejects.toThrow();
    await namedKey(account.id, "CI");
    await createKey(testDb.db, account.id, { kind: "device", client: "shelf-cli" });
    await deliverAll();
    const mails = mailsTo(account.email);
    expect(mails.map((mail) => mail.subject).sort()).toEqual(
      [
        "Shelf 계정의 비밀번호가 바뀌었습니다",
        "Shelf 계정에 API 키가 만들어졌습니다",
        "새 기기가 Shelf 계정에 로그인했습니다",
      ].sort(),
    );
    const rows = await logRows(account.id);
    const changed = rows.find((row) => row.kind === "password_changed");
    const [key, device] = rows.filter((row) => row.kind === "key_created");
    const byKind = (subject: string) => mails.find((mail) => mail.subject === subject) as ReceivedMail;
    const password = byKind("Shelf 계정의 비밀번호가 바뀌었습니다");
    expect(password.text).toContain("Ann님, 안녕하세요.");
    expect(password.text).toContain(`보안 기록: 비밀번호 변경 · ${dateKo(changed?.createdAt as Date)}`);
    expect(password.text).toContain(`${TEST_BASE_URL}/account/security-log`);
    expect(byKind("Shelf 계정에 API 키가 만들어졌습니다").text).toContain(`CI (${key?.detail.prefix}…)`);
    expect(byKind("새 기기가 Shelf 계정에 로그인했습니다").text).toContain(`shelf-cli (${device?.detail.prefix}…)`);
    const left = await testDb.db.execute<{ n: number }>(
      sql`select count(*)::int as n from mail_outbox where account_id = ${account.id}`,
    );
    expect(left[0]?.n).toBe(0);
  });

  it("mails a reset password, and the deletion to the address the account had, in English", async () => {
    const account = await person("en");
    const token = randomSecret();
    recordSecret(token);
    await testDb.db.insert(schema.passwordResets).values({
      accountId: account.id,
      tokenHash: hashSecret(token),
      expiresAt: new Date(Date.now() + 600_000),
    });
    await resetPassword(testDb.db, { token, new_password: "a password from the link" });
    await deliverAll();
    const [reset] = mailsTo(account.email);
    expect(reset?.subject).toBe("The password of your Shelf account was reset");
    expect(reset?.text).toContain("Hello Ann,");
    expect(reset?.text).toContain("Security log: Password reset by email link · ");
    await deleteAccount(
      testDb.db,
      createGuessLimits({ namespace: `n-${randomSecret().slice(0, 8)}` }).signIn,
      account.id,
      {
        current_password: "a password from the link",
        confirm_email: account.email,
      },
    );
    await deliverAll();
    const deleted = mailsTo(account.email).find((mail) => mail.subject === "Your Shelf account was deleted");
    expect(deleted?.text).toContain("Security log: Account deleted · ");
    // Nothing to follow: the account's log is gone.
    expect(deleted?.text).not.toContain("/account/security-log");
    expect(mailsTo(account.email)).toHaveLength(2);
  });

  it("keeps a mail the SMTP server did not take, and sends it on a later pass", async () => {
    const account = await person("en");
    await namedKey(account.id, "later");
    const closed = createMailer({ smtpUrl: "smtp://shelf:x@127.0.0.1:1", outboxDir: "/nonexistent", from: "x@y.test" });
    await deliverOutbox(testDb.db, { mailer: closed, baseUrl: TEST_BASE_URL, log: testLog });
    closed.close();
    const [row] = await testDb.db.select().from(schema.mailOutbox).where(eq(schema.mailOutbox.accountId, account.id));
    expect(row?.attempts).toBe(1);
    await testDb.db
      .update(schema.mailOutbox)
      .set({ nextAttemptAt: sql`now()` })
      .where(eq(schema.mailOutbox.accountId, account.id));
    await deliverAll();
    expect(mailsTo(account.email).map((mail) => mail.subject)).toEqual([
      "An API key was created on your Shelf account",
    ]);
  });
});

function dateKo(date: Date): string {
  return new Intl.DateTimeFormat("ko-KR", { dateStyle: "long", timeZone: "UTC" }).format(date);
}
