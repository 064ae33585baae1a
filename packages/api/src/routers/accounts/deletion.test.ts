import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createGuessLimits } from "../../auth/guess-limits";
import { hashSecret, randomSecret } from "../../auth/key-secret";
import { hashPassword } from "../../auth/password";
import { startWebSession, webSessionAccount } from "../../auth/web-session";
import { addPaymentMethod, createOrder } from "../../commerce/order-admin";
import { createAccount, createKey, createProduct } from "../../testing/factories";
import { TEST_BASE_URL } from "../../testing/harness";
import { recordSecret } from "../../testing/secrets";
import { withApiSuite } from "../../testing/suite";
import { createSubscription } from "../subscriptions/admin-service";
import { deleteAccount } from "./deletion";
import { findAccountByEmail, requireAccountByEmail, signUp } from "./service";
import { checkCredentials } from "./sign-in";

const { testDb, request } = withApiSuite();

const PASSWORD = "correct horse battery staple";
const limits = () => createGuessLimits({ namespace: `deletion-${randomSecret().slice(0, 8)}` });

async function count(table: string, accountId: number): Promise<number> {
  const rows = await testDb.db.execute<{ n: number }>(
    sql`select count(*)::int as n from ${sql.identifier(table)} where account_id = ${accountId}`,
  );
  return (rows as unknown as { n: number }[])[0]?.n ?? -1;
}

/** An account with something of every kind deletion touches. */
async function fullAccount(email: string) {
  const { db } = testDb;
  const account = await createAccount(db, { email, passwordHash: await hashPassword(PASSWORD), name: "Ann" });
  const product = await createProduct(db);
  await addPaymentMethod(db, { accountId: account.id, brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 });
  const order = await createOrder(db, { accountId: account.id, productId: product.id });
  const subscription = await createSubscription(db, { accountId: account.id, productId: product.id });
  const restKey = await createKey(db, account.id, { abilities: ["products.read"] });
  const mcpKey = await createKey(db, account.id, { abilities: ["mcp.read", "products.read"] });
  const deviceKey = await createKey(db, account.id, { kind: "device", client: "shelf-cli" });
  const session = await startWebSession(db, account.id);
  recordSecret(session.secret);
  const [device] = await db
    .insert(schema.devices)
    .values({ accountId: account.id, identifier: `dev-${account.id}`, name: "Ann's laptop" })
    .returning();
  await db.insert(schema.deviceActivations).values({
    accountId: account.id,
    productId: product.id,
    deviceId: device?.id as number,
  });
  await db.execute(sql`insert into oauth_clients (id, name, redirect_uris, registration)
    values (${`shelfc_${account.id}`}, 'An app', array['http://127.0.0.1:1/cb'], 'dynamic')`);
  const [grant] = await db
    .insert(schema.oauthGrants)
    .values({
      accountId: account.id,
      clientId: `shelfc_${account.id}`,
      scopes: ["mcp.read"],
      redirectUri: "http://127.0.0.1:1/cb",
    })
    .returning();
  await db.insert(schema.oauthTokens).values({
    tokenHash: hashSecret(randomSecret()),
    kind: "access",
    grantId: grant?.id as number,
    scopes: ["mcp.read"],
    resource: `${TEST_BASE_URL}/api/mcp`,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  await db.insert(schema.passwordResets).values({
    accountId: account.id,
    tokenHash: hashSecret(randomSecret()),
    expiresAt: new Date(Date.now() + 60_000),
  });
  await db.insert(schema.emailLinks).values({
    accountId: account.id,
    purpose: "change",
    email: `new-${email}`,
    tokenHash: hashSecret(randomSecret()),
    expiresAt: new Date(Date.now() + 60_000),
  });
  await db.insert(schema.securityEvents).values({ accountId: account.id, kind: "password_changed" });
  return { account, product, order, subscription, restKey, mcpKey, deviceKey, session };
}

function mcpInitialize(key: string) {
  return request("/api/mcp", {
    method: "POST",
    key,
    headers: { accept: "application/json, text/event-stream" },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
  });
}

describe("account deletion", () => {
  it("anonymises the account in one transaction: keys, sessions, apps, seats, subscriptions, cards end; sales kept", async () => {
    const { db } = testDb;
    const email = `del-${randomSecret().slice(0, 8).toLowerCase()}@example.test`;
    const made = await fullAccount(email);
    const other = await fullAccount(`other-${email}`);
    const otherLog = await count("security_events", other.account.id);
    // The keys work before.
    expect((await request("/api/library", { key: made.restKey.key })).status).toBe(200);
    expect((await mcpInitialize(made.mcpKey.key)).status).toBe(200);

    const guess = limits();
    await expect(
      deleteAccount(db, guess.signIn, made.account.id, { current_password: "wrong", confirm_email: email }),
    ).rejects.toMatchObject({ errors: { current_password: expect.any(Array) } });
    await expect(
      deleteAccount(db, guess.signIn, made.account.id, { current_password: PASSWORD, confirm_email: "nope" }),
    ).rejects.toMatchObject({ errors: { confirm_email: expect.any(Array) } });
    expect((await db.select().from(schema.accounts).where(eq(schema.accounts.id, made.account.id)))[0]?.deletedAt).toBe(
      null,
    );

    const result = await deleteAccount(db, guess.signIn, made.account.id, {
      current_password: PASSWORD,
      confirm_email: email.toUpperCase(),
    });
    expect(result).toEqual({
      account_id: made.account.id,
      revoked_keys: 3,
      ended_sessions: 1,
      revoked_apps: 1,
      released_seats: 1,
      cancelled_subscriptions: 1,
      removed_cards: 1,
      kept_orders: 2,
      kept_invoices: 2,
    });
    const [row] = await db.select().from(schema.accounts).where(eq(schema.accounts.id, made.account.id));
    expect(row?.email).toMatch(new RegExp(`^deleted-${made.account.id}-[0-9a-f]{12}@deleted\\.invalid$`));
    expect(row).toMatchObject({ name: null, passwordHash: null, deletedAt: expect.any(Date) });

    // Refused everywhere: one REST call and one MCP call with the keys that worked.
    const rest = await request("/api/library", { key: made.restKey.key });
    expect(rest.status).toBe(401);
    expect(rest.body.error).toBe("invalid_api_key");
    expect((await mcpInitialize(made.mcpKey.key)).status).toBe(401);
    expect(await webSessionAccount(db, made.session.secret)).toBeNull();
    // Signing in as it fails like a wrong password; the address can sign up again.
    expect(await checkCredentials(db, guess.signIn, { email, password: PASSWORD, address: "192.0.2.9" })).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });
    const again = await signUp(db, { email, password: PASSWORD });
    expect(again.id).not.toBe(made.account.id);
    // Nobody finds it by its placeholder either: no password reset, no operator command revives it.
    expect(await findAccountByEmail(db, row?.email as string)).toBeNull();
    await expect(requireAccountByEmail(db, row?.email as string)).rejects.toMatchObject({ code: "not_found" });

    // What ended, and what was kept.
    expect(await count("device_activations", made.account.id)).toBe(0);
    expect(await count("devices", made.account.id)).toBe(0);
    expect(await count("payment_methods", made.account.id)).toBe(0);
    expect(await count("password_resets", made.account.id)).toBe(0);
    expect(await count("email_links", made.account.id)).toBe(0);
    expect(await count("orders", made.account.id)).toBe(2);
    expect(await count("invoices", made.account.id)).toBe(2);
    const [sub] = await db
      .select()
      .from(schema.subscriptions)
      .where(eq(schema.subscriptions.accountId, made.account.id));
    expect(sub).toMatchObject({ status: "cancelled", renewalAmountCents: null, cancelAtPeriodEnd: false });
    expect(sub?.endsAt?.getTime() ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(Date.now() + 1000);
    const grants = await db.select().from(schema.oauthGrants).where(eq(schema.oauthGrants.accountId, made.account.id));
    expect(grants.every((grant) => grant.revokedAt !== null)).toBe(true);
    const tokens = await db.execute<{ live: number }>(
      sql`select count(*)::int as live from oauth_tokens t join oauth_grants g on g.id = t.grant_id
        where g.account_id = ${made.account.id} and t.revoked_at is null`,
    );
    expect((tokens as unknown as { live: number }[])[0]?.live).toBe(0);
    const log = await db
      .select()
      .from(schema.securityEvents)
      .where(eq(schema.securityEvents.accountId, made.account.id));
    expect(log.map((event) => event.kind)).toEqual(["account_deleted"]);

    // The other account is untouched.
    expect((await request("/api/library", { key: other.restKey.key })).status).toBe(200);
    expect(await webSessionAccount(db, other.session.secret)).not.toBeNull();
    expect(await count("payment_methods", other.account.id)).toBe(1);
    expect(await count("security_events", other.account.id)).toBe(otherLog);

    // Deleted once: a second deletion finds no password to check.
    await expect(
      deleteAccount(db, guess.signIn, made.account.id, { current_password: PASSWORD, confirm_email: email }),
    ).rejects.toMatchObject({ errors: { current_password: expect.any(Array) } });
    await guess.close();
  });

  it("a deletion whose log row cannot be written does not happen", async () => {
    const { db } = testDb;
    const email = `fail-${randomSecret().slice(0, 8).toLowerCase()}@example.test`;
    const made = await fullAccount(email);
    const logged = await count("security_events", made.account.id);
    await db.execute(sql`create or replace function refuse_deletion_event() returns trigger language plpgsql as
      $$ begin if new.kind = 'account_deleted' then raise exception 'security log refused'; end if; return new; end $$`);
    await db.execute(sql`create trigger refuse_deletion_event before insert on security_events
      for each row execute function refuse_deletion_event()`);
    const guess = limits();
    try {
      await expect(
        deleteAccount(db, guess.signIn, made.account.id, { current_password: PASSWORD, confirm_email: email }),
      ).rejects.toThrow();
    } finally {
      await db.execute(sql`drop trigger refuse_deletion_event on security_events`);
      await guess.close();
    }
    const [row] = await db.select().from(schema.accounts).where(eq(schema.accounts.id, made.account.id));
    expect(row).toMatchObject({ email, deletedAt: null });
    expect((await request("/api/library", { key: made.restKey.key })).status).toBe(200);
    expect(await count("device_activations", made.account.id)).toBe(1);
    expect(await count("security_events", made.account.id)).toBe(logged);
  });

  it("an account with orders cannot be removed by a DELETE: sales records stay", async () => {
    const made = await fullAccount(`keep-${randomSecret().slice(0, 8).toLowerCase()}@example.test`);
    await expect(testDb.db.delete(schema.accounts).where(eq(schema.accounts.id, made.account.id))).rejects.toThrow();
  });
});
