import { schema } from "@shelf/db";
import { useTestDatabase } from "@shelf/db/testing";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createGuessLimits } from "../../auth/guess-limits";
import { hashPassword, verifyPassword } from "../../auth/password";
import { revokeDevice } from "../../client-policy";
import { pruneExpired } from "../../housekeeping";
import { approveAuthorization } from "../../oauth/authorize";
import { registerClient } from "../../oauth/clients";
import { createAccount, createProduct, grantEntitlement } from "../../testing/factories";
import { signedInCaller, TEST_OAUTH_SETTINGS } from "../../testing/harness";
import { securityEventKinds } from "../../testing/security-events";
import { checkCredentials } from "../accounts/sign-in";
import { disconnectApp } from "../connected-apps/service";
import { blockDevice, deactivateDevice } from "../devices/admin-service";
import { createOwnKey, revokeOwnKey } from "../keys/service";
import { listSecurityEvents } from "./service";

const testDb = useTestDatabase();

const PASSWORD = "correct horse battery staple";

async function newAccount() {
  return createAccount(testDb.db, { passwordHash: await hashPassword(PASSWORD) });
}

const kinds = (accountId: number) => securityEventKinds(testDb.db, accountId);

async function seatedDevice(accountId: number, productId: number, name: string) {
  const [device] = await testDb.db
    .insert(schema.devices)
    .values({ accountId, identifier: `device-${Math.random()}`, name, activatedAt: new Date() })
    .returning();
  await testDb.db.insert(schema.deviceActivations).values({ accountId, productId, deviceId: device?.id as number });
  return device as typeof schema.devices.$inferSelect;
}

/** Makes every insert into the security log fail, for the length of `work`. */
async function withFailingLog(work: () => Promise<unknown>) {
  await testDb.db.execute(sql`create or replace function refuse_security_event() returns trigger language plpgsql as
    $$ begin raise exception 'security log refused'; end $$`);
  await testDb.db.execute(sql`create trigger refuse_security_event before insert on security_events
    for each row execute function refuse_security_event()`);
  try {
    await work();
  } finally {
    await testDb.db.execute(sql`drop trigger refuse_security_event on security_events`);
  }
}

describe("the security log", () => {
  it("gets one row per audited change: sign-in, failure, password, keys, devices, apps", async () => {
    const { db } = testDb;
    const account = await newAccount();
    const limits = createGuessLimits({ namespace: `log-${account.id}` });
    // A wrong password, then a right one (the web app then starts the session, which is the sign-in).
    expect(
      await checkCredentials(db, limits.signIn, { email: account.email, password: "wrong one", address: "192.0.2.7" }),
    ).toMatchObject({ ok: false });
    expect(
      await checkCredentials(db, limits.signIn, { email: account.email, password: PASSWORD, address: "192.0.2.7" }),
    ).toMatchObject({ ok: true });
    // Unknown emails are nobody's business: no row anywhere.
    const before = (await db.select({ n: sql<number>`count(*)::int` }).from(schema.securityEvents))[0]?.n;
    await checkCredentials(db, limits.signIn, { email: "nobody@example.test", password: "x", address: "192.0.2.7" });
    expect((await db.select({ n: sql<number>`count(*)::int` }).from(schema.securityEvents))[0]?.n).toBe(before);

    const { caller } = await signedInCaller(db, account.id, { guessLimits: limits });
    await caller.account.changePassword({ current_password: PASSWORD, new_password: "a new long password" });

    const product = await createProduct(db);
    await grantEntitlement(db, account.id, product.id);
    const created = await createOwnKey(
      db,
      account.id,
      { name: "laptop", product_id: null, abilities: ["products.read"], expires_at: null },
      "shelf",
    );
    await revokeOwnKey(db, account.id, created.record.id);
    // Revoking again changes nothing, and writes nothing.
    await revokeOwnKey(db, account.id, created.record.id);

    const device = await seatedDevice(account.id, product.id, "Studio Mac");
    await deactivateDevice(db, account.id, device.id);
    // Nothing left to release: no change, no row.
    await deactivateDevice(db, account.id, device.id);

    const redirectUri = "http://127.0.0.1:45678/callback";
    const client = await registerClient(db, { client_name: "Logged app", redirect_uris: [redirectUri] });
    await approveAuthorization(db, TEST_OAUTH_SETTINGS, account.id, {
      client: {
        id: client.client_id,
        name: "Logged app",
        redirectUris: [redirectUri],
        registration: "dynamic",
        clientUri: null,
      },
      redirectUri,
      scopes: ["mcp.read"],
      resource: TEST_OAUTH_SETTINGS.resource,
      state: null,
      codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    });
    const [grant] = await db
      .select({ id: schema.oauthGrants.id })
      .from(schema.oauthGrants)
      .where(eq(schema.oauthGrants.accountId, account.id));
    await disconnectApp(db, account.id, grant?.id as number);
    await disconnectApp(db, account.id, grant?.id as number);

    expect(await kinds(account.id)).toEqual([
      "sign_in_failed",
      "sign_in", // the signed-in caller's session
      "password_changed",
      "key_created",
      "key_revoked",
      "device_released",
      "app_connected",
      "app_disconnected",
    ]);
    const log = await listSecurityEvents(db, account.id, { limit: 100 });
    const byKind = Object.fromEntries(log.events.map((event) => [event.kind, event]));
    expect(byKind.sign_in_failed?.address).toBe("192.0.2.7");
    expect(byKind.key_created?.detail).toMatchObject({ name: "laptop", prefix: created.record.prefix });
    expect(byKind.device_released?.detail).toMatchObject({ name: "Studio Mac" });
    expect(byKind.app_disconnected?.detail).toMatchObject({ client: "Logged app" });
    await limits.close();
  });

  it("logs a device its owner blocks, and an operator's block in every account whose seat it held", async () => {
    const { db } = testDb;
    const [owner, other] = [await newAccount(), await newAccount()];
    const product = await createProduct(db);
    await grantEntitlement(db, owner.id, product.id);
    const device = await seatedDevice(owner.id, product.id, "Old phone");
    // A block that fails (a product the device has nothing to do with) writes nothing.
    const unrelated = await createProduct(db);
    await expect(blockDevice(db, owner.id, device.id, unrelated.id)).rejects.toMatchObject({ code: "not_found" });
    await withFailingLog(() => expect(blockDevice(db, owner.id, device.id, product.id)).rejects.toThrow());
    expect(await kinds(owner.id)).toEqual([]);
    const [still] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(schema.deviceActivations)
      .where(eq(schema.deviceActivations.deviceId, device.id));
    expect(still?.n).toBe(1);

    await blockDevice(db, owner.id, device.id, product.id);
    const [blocked] = (await listSecurityEvents(db, owner.id, { limit: 10 })).events;
    expect(blocked).toMatchObject({ kind: "device_blocked", detail: { name: "Old phone", by: "owner" } });

    // The operator's policy:revoke of a device another account has seated: in that account's log.
    const otherDevice = await seatedDevice(other.id, product.id, "Shared kiosk");
    await revokeDevice(db, product.id, otherDevice.identifier);
    expect(await kinds(other.id)).toEqual(["device_blocked"]);
    expect((await listSecurityEvents(db, other.id, { limit: 10 })).events[0]?.detail).toMatchObject({ by: "operator" });
    expect(await kinds(owner.id)).toEqual(["device_blocked"]);
  });

  it("writes no row for a change that fails, and a change whose row cannot be written does not happen", async () => {
    const { db } = testDb;
    const account = await newAccount();
    const limits = createGuessLimits({ namespace: `fail-${account.id}` });
    const { caller, sessionId } = await signedInCaller(db, account.id, { guessLimits: limits });
    const other = await signedInCaller(db, account.id, { guessLimits: limits });
    const start = await kinds(account.id);

    // Refused changes: a wrong current password, a fourth key in a full scope, another account's device.
    await expect(
      caller.account.changePassword({ current_password: "not it", new_password: "whatever it is" }),
    ).rejects.toThrow();
    for (const name of ["a", "b", "c"]) {
      await createOwnKey(
        db,
        account.id,
        { name, product_id: null, abilities: ["products.read"], expires_at: null },
        "shelf",
      );
    }
    const afterKeys = await kinds(account.id);
    await expect(
      createOwnKey(
        db,
        account.id,
        { name: "d", product_id: null, abilities: ["products.read"], expires_at: null },
        "shelf",
      ),
    ).rejects.toMatchObject({ code: "api_key_limit_reached" });
    const stranger = await newAccount();
    const product = await createProduct(db);
    const strangerDevice = await seatedDevice(stranger.id, product.id, "Not yours");
    await expect(deactivateDevice(db, account.id, strangerDevice.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await kinds(account.id)).toEqual(afterKeys);
    expect(afterKeys).toEqual([...start, "key_created", "key_created", "key_created"]);
    expect(await kinds(stranger.id)).toEqual([]);

    // The row and the change are one transaction: when the row cannot be written, the change is not made either.
    const hashBefore = (await db.select().from(schema.accounts).where(eq(schema.accounts.id, account.id)))[0]
      ?.passwordHash as string;
    const [liveKey] = await db
      .select({ id: schema.apiKeys.id })
      .from(schema.apiKeys)
      .where(eq(schema.apiKeys.accountId, account.id));
    const device = await seatedDevice(account.id, product.id, "Kept");
    await withFailingLog(async () => {
      await expect(
        caller.account.changePassword({ current_password: PASSWORD, new_password: "never stored" }),
      ).rejects.toThrow();
      await expect(revokeOwnKey(db, account.id, liveKey?.id as number)).rejects.toThrow(
        /insert into "security_events"/,
      );
      await expect(deactivateDevice(db, account.id, device.id)).rejects.toThrow(/insert into "security_events"/);
    });
    const [after] = await db.select().from(schema.accounts).where(eq(schema.accounts.id, account.id));
    expect(after?.passwordHash).toBe(hashBefore);
    expect(await verifyPassword(PASSWORD, after?.passwordHash as string)).toBe(true);
    const sessions = await db
      .select({ id: schema.webSessions.id, revokedAt: schema.webSessions.revokedAt })
      .from(schema.webSessions)
      .where(eq(schema.webSessions.accountId, account.id));
    expect(sessions.map((s) => [s.id, s.revokedAt])).toEqual(
      expect.arrayContaining([
        [sessionId, null],
        [other.sessionId, null],
      ]),
    );
    const [key] = await db
      .select()
      .from(schema.apiKeys)
      .where(eq(schema.apiKeys.id, liveKey?.id as number));
    expect(key?.revokedAt).toBeNull();
    const seats = await db
      .select()
      .from(schema.deviceActivations)
      .where(eq(schema.deviceActivations.deviceId, device.id));
    expect(seats).toHaveLength(1);
    expect(await kinds(account.id)).toEqual(afterKeys);
    await limits.close();
  });

  it("shows an account only its own rows, newest first, a page at a time", async () => {
    const { db } = testDb;
    const mine = await newAccount();
    const theirs = await newAccount();
    const limits = createGuessLimits({ namespace: `cross-${mine.id}` });
    for (let i = 0; i < 5; i += 1) {
      await checkCredentials(db, limits.signIn, {
        email: theirs.email,
        password: `wrong ${i}`,
        address: "198.51.100.1",
      });
    }
    for (let i = 0; i < 3; i += 1) {
      await checkCredentials(db, limits.signIn, { email: mine.email, password: `wrong ${i}`, address: "203.0.113.9" });
    }
    const { caller } = await signedInCaller(db, mine.id, { guessLimits: limits });
    const first = await caller.securityLog.list({ limit: 2 });
    expect(first.events.map((event) => event.kind)).toEqual(["sign_in", "sign_in_failed"]);
    expect(first.next_before).toBe(first.events[1]?.id);
    const second = await caller.securityLog.list({ limit: 2, before: first.next_before as number });
    expect(second.events.map((event) => event.kind)).toEqual(["sign_in_failed", "sign_in_failed"]);
    expect(second.next_before).toBeNull();
    const all = [...first.events, ...second.events];
    expect(all.every((event) => event.address === null || event.address === "203.0.113.9")).toBe(true);
    // Their rows exist, and are never in mine (whatever `before` I send).
    expect(await kinds(theirs.id)).toHaveLength(5);
    const everything = await caller.securityLog.list({ limit: 100, before: 2 ** 31 - 1 });
    expect(everything.events).toHaveLength(4);
    await expect(caller.securityLog.list({ limit: 0 })).rejects.toThrow();
    await limits.close();
  });

  it("is kept 180 days: housekeeping deletes older rows and keeps the rest", async () => {
    const { db } = testDb;
    const account = await newAccount();
    await db.insert(schema.securityEvents).values([
      { accountId: account.id, kind: "sign_in", createdAt: new Date(Date.now() - 181 * 86_400_000) },
      { accountId: account.id, kind: "sign_in_failed", createdAt: new Date(Date.now() - 179 * 86_400_000) },
    ]);
    const pruned = await pruneExpired(db);
    expect(pruned.security_events).toBeGreaterThanOrEqual(1);
    expect(await kinds(account.id)).toEqual(["sign_in_failed"]);
  });
});
