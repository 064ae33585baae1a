import { randomBytes, scryptSync } from "node:crypto";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuessLimits, type GuessLimits } from "../../auth/guess-limits";
import { endWebSessions, startWebSession, webSessionAccount } from "../../auth/web-session";
import { createAccount, signedInCaller } from "../../testing";
import { signUp } from "./service";
import { checkCredentials } from "./sign-in";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

let testDb: TestDatabase;
const opened: GuessLimits[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(opened.map((limits) => limits.close()));
  await testDb.drop();
});

function limits(): GuessLimits {
  const made = createGuessLimits({ namespace: `test-${randomBytes(4).toString("hex")}` });
  opened.push(made);
  return made;
}

const email = () => `person-${randomBytes(4).toString("hex")}@example.test`;

describe("sign-up and sign-in", () => {
  it("signs up with an argon2id hash, and refuses a second account for the same email in any case", async () => {
    const address = email();
    const account = await signUp(testDb.db, { email: address, password: "long enough words", name: "Ada" });
    expect(account).toMatchObject({ email: address, name: "Ada", has_password: true });
    const [row] = await testDb.db.select().from(schema.accounts).where(eq(schema.accounts.id, account.id));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    await expect(
      signUp(testDb.db, { email: address.toUpperCase(), password: "other long words" }),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(signUp(testDb.db, { email: email(), password: "short" })).rejects.toMatchObject({
      errors: { password: expect.any(Array) },
    });
    await expect(signUp(testDb.db, { email: "not an email", password: "long enough words" })).rejects.toMatchObject({
      errors: { email: expect.any(Array) },
    });
  });

  it("lets the right password in, and answers a wrong password and an unknown email alike", async () => {
    const address = email();
    const account = await signUp(testDb.db, { email: address, password: "right horse battery" });
    const guard = limits();
    const check = (who: string, password: string) =>
      checkCredentials(testDb.db, guard.signIn, { email: who, password, address: "192.0.2.1" });
    await expect(check(` ${address.toUpperCase()} `, "right horse battery")).resolves.toEqual({
      ok: true,
      account: { id: account.id, email: address, name: null },
    });
    await expect(check(address, "wrong horse battery")).resolves.toEqual({ ok: false, reason: "invalid_credentials" });
    await expect(check(email(), "right horse battery")).resolves.toEqual({ ok: false, reason: "invalid_credentials" });
  });

  it("throttles failures per account across instances, even in parallel, and then refuses the right password too", async () => {
    const address = email();
    await signUp(testDb.db, { email: address, password: "right horse battery" });
    // Two instances on one Redis and one namespace: one count.
    const namespace = `test-${randomBytes(4).toString("hex")}`;
    const shared = [0, 1].map(() => createGuessLimits({ namespace, redisUrl: REDIS_URL }));
    opened.push(...shared);
    expect(await Promise.all(shared.map((instance) => instance.ready()))).toEqual([true, true]);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        checkCredentials(testDb.db, (shared[i % 2] as GuessLimits).signIn, {
          email: address,
          password: `wrong guess ${i}`,
          address: `198.51.100.${i}`,
        }),
      ),
    );
    expect(outcomes.filter((outcome) => !outcome.ok && outcome.reason === "invalid_credentials")).toHaveLength(10);
    expect(outcomes.filter((outcome) => !outcome.ok && outcome.reason === "throttled")).toHaveLength(20);
    const right = await checkCredentials(testDb.db, (shared[1] as GuessLimits).signIn, {
      email: address,
      password: "right horse battery",
      address: "198.51.100.200",
    });
    expect(right).toMatchObject({ ok: false, reason: "throttled", retryAfterSeconds: expect.any(Number) });
  });

  it("throttles failures per client address across accounts", async () => {
    const guard = limits();
    const outcomes = [];
    for (let i = 0; i < 51; i++) {
      outcomes.push(
        await checkCredentials(testDb.db, guard.signIn, { email: email(), password: "guess", address: "203.0.113.9" }),
      );
    }
    expect(outcomes.slice(0, 50).every((outcome) => !outcome.ok && outcome.reason === "invalid_credentials")).toBe(
      true,
    );
    expect(outcomes[50]).toMatchObject({ ok: false, reason: "throttled" });
  });

  it("never counts successful sign-ins as failures", async () => {
    const address = email();
    await signUp(testDb.db, { email: address, password: "right horse battery" });
    const guard = limits();
    for (let i = 0; i < 15; i++) {
      const outcome = await checkCredentials(testDb.db, guard.signIn, {
        email: address,
        password: "right horse battery",
        address: "192.0.2.50",
      });
      expect(outcome.ok).toBe(true);
    }
  });

  it("replaces a legacy scrypt hash with argon2id at the next sign-in", async () => {
    const salt = randomBytes(16);
    const hash = scryptSync("old words here", salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 128 * 1024 * 1024 });
    const legacy = ["scrypt", 2 ** 15, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$");
    const account = await createAccount(testDb.db, { email: email(), passwordHash: legacy });
    const outcome = await checkCredentials(testDb.db, limits().signIn, {
      email: account.email,
      password: "old words here",
      address: "192.0.2.60",
    });
    expect(outcome.ok).toBe(true);
    const [row] = await testDb.db.select().from(schema.accounts).where(eq(schema.accounts.id, account.id));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
  });
});

describe("web sessions", () => {
  it("live until ended: signing out ends every session of the person at once", async () => {
    const account = await createAccount(testDb.db);
    const first = await startWebSession(testDb.db, account.id);
    const second = await startWebSession(testDb.db, account.id);
    await expect(webSessionAccount(testDb.db, first.secret)).resolves.toEqual({
      sessionId: first.sessionId,
      accountId: account.id,
      email: account.email,
      name: account.name,
      emailVerified: false,
    });
    const rows = await testDb.db.select().from(schema.webSessions).where(eq(schema.webSessions.accountId, account.id));
    expect(JSON.stringify(rows)).not.toContain(first.secret);
    expect(await endWebSessions(testDb.db, account.id)).toBe(2);
    await expect(webSessionAccount(testDb.db, first.secret)).resolves.toBeNull();
    await expect(webSessionAccount(testDb.db, second.secret)).resolves.toBeNull();
    await expect(webSessionAccount(testDb.db, "never-issued")).resolves.toBeNull();
  });

  it("changing the password ends the other sessions and keeps the person who changed it signed in", async () => {
    const address = email();
    const account = await signUp(testDb.db, { email: address, password: "first long password" });
    const elsewhere = await startWebSession(testDb.db, account.id);
    const here = await signedInCaller(testDb.db, account.id);
    await expect(
      here.caller.account.changePassword({ current_password: "not it", new_password: "second long password" }),
    ).rejects.toMatchObject({ cause: { errors: { current_password: expect.any(Array) } } });
    await expect(
      here.caller.account.changePassword({
        current_password: "first long password",
        new_password: "second long password",
      }),
    ).resolves.toEqual({ ended_sessions: 1 });
    await expect(webSessionAccount(testDb.db, elsewhere.secret)).resolves.toBeNull();
    await expect(webSessionAccount(testDb.db, here.secret)).resolves.toMatchObject({ accountId: account.id });
    const guard = limits();
    const check = (password: string) =>
      checkCredentials(testDb.db, guard.signIn, { email: address, password, address: "192.0.2.70" });
    await expect(check("first long password")).resolves.toMatchObject({ ok: false });
    await expect(check("second long password")).resolves.toMatchObject({ ok: true });
  });
});
