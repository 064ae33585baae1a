import { randomBytes } from "node:crypto";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createAccount, createKey, createProduct, grantEntitlement, recordSecret, signedInCaller } from "../../testing";
import { raceOnLock } from "../../testing/race";
import { withApiSuite } from "../../testing/suite";

const { testDb, request } = withApiSuite({ database: { max: 20 } });

async function person() {
  const account = await createAccount(testDb.db);
  const { caller } = await signedInCaller(testDb.db, account.id);
  return { account, caller };
}

describe("the key list of developer settings", () => {
  it("creates a key shown once, lists it by prefix only, and revokes it for the very next request", async () => {
    const { caller } = await person();
    const created = await caller.keys.create({
      name: "laptop",
      abilities: ["products.read", "mcp.read", "device.install"],
    });
    recordSecret(created.key);
    expect(created.key).toMatch(/^shelf_[1-9A-HJ-NP-Za-km-z]{32}$/);
    expect(created.record).toMatchObject({
      name: "laptop",
      prefix: created.key.slice(0, 14),
      kind: "created",
      product: null,
      expires_at: null,
      last_used_at: null,
    });
    expect((await request("/api/library", { key: created.key })).status).toBe(200);

    const list = await caller.keys.list();
    expect(list.keys).toEqual([
      { ...created.record, last_used_at: expect.any(String), last_used_address: "203.0.113.7" },
    ]);
    expect(JSON.stringify(list)).not.toContain(created.key);
    expect(list.scopes[0]).toEqual({ product: null, used: 1, free: 2, limit: 3 });

    const revoked = await caller.keys.revoke({ id: created.record.id });
    expect(revoked.id).toBe(created.record.id);
    const refused = await request("/api/library", { key: created.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("invalid_api_key");
    expect((await caller.keys.list()).keys).toEqual([]);
    expect((await caller.keys.list()).ended).toEqual([{ ...revoked, revoked_at: expect.any(String) }]);
  });

  it("counts slots per scope and refuses a fourth key in one, through the operator CLI's rule", async () => {
    const { account, caller } = await person();
    const product = await createProduct(testDb.db, { name: "Scoped App" });
    const notOwned = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    for (let i = 0; i < 3; i++) {
      recordSecret((await caller.keys.create({ name: `key ${i}`, abilities: ["products.read"] })).key);
    }
    await expect(caller.keys.create({ name: "fourth", abilities: ["products.read"] })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { code: "api_key_limit_reached" },
    });
    const scoped = await caller.keys.create({ name: "app", abilities: ["products.read"], product_id: product.id });
    recordSecret(scoped.key);
    expect(scoped.record.product).toEqual({ id: product.id, name: "Scoped App" });
    const { scopes } = await caller.keys.list();
    expect(scopes).toEqual([
      { product: null, used: 3, free: 0, limit: 3 },
      { product: { id: product.id, name: "Scoped App" }, used: 1, free: 2, limit: 3 },
    ]);
    await expect(
      caller.keys.create({ name: "other", abilities: ["products.read"], product_id: notOwned.id }),
    ).rejects.toMatchObject({ code: "UNPROCESSABLE_CONTENT", cause: { errors: { product_id: expect.any(Array) } } });
  });

  it("never lets parallel creations past 3 live keys in a scope", async () => {
    const { caller } = await person();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => caller.keys.create({ name: `parallel ${i}`, abilities: ["mcp.read"] })),
    );
    for (const result of results) if (result.status === "fulfilled") recordSecret(result.value.key);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(3);
    expect((await caller.keys.list()).keys).toHaveLength(3);
  });

  it("makes one key from one form token, however many submissions of the form race, and a new token makes another", async () => {
    const { account, caller } = await person();
    const formToken = randomBytes(18).toString("base64url");
    const submit = (scope: number | null) => () =>
      caller.keys.create({
        name: "pressed three times",
        abilities: ["mcp.read"],
        form_token: formToken,
        product_id: scope,
      });
    // Held on the scope's lock until every submission waits on a lock: they are certain to arrive together.
    const results = await raceOnLock(testDb.db, sql`select pg_advisory_xact_lock(${account.id}, 0)`, [
      submit(null),
      submit(null),
      submit(null),
    ]);
    for (const result of results) if (result.status === "fulfilled") recordSecret(result.value.key);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results.filter((result) => result.status === "rejected")) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({
        code: "CONFLICT",
        cause: { code: "conflict", details: { form_token: "already_used" } },
      });
    }
    expect((await caller.keys.list()).keys.map((key) => key.name)).toEqual(["pressed three times"]);
    const created = await testDb.db.execute<{ n: number }>(
      sql`select count(*)::int as n from security_events where account_id = ${account.id} and kind = 'key_created'`,
    );
    expect(created[0]?.n).toBe(1);
    // A new form (its own token) makes the next key; a malformed token is refused before anything is written.
    recordSecret(
      (
        await caller.keys.create({
          name: "next",
          abilities: ["mcp.read"],
          form_token: randomBytes(18).toString("base64url"),
        })
      ).key,
    );
    await expect(caller.keys.create({ name: "x", abilities: ["mcp.read"], form_token: "short" })).rejects.toMatchObject(
      {
        code: "BAD_REQUEST",
      },
    );
    expect((await caller.keys.list()).keys).toHaveLength(2);
  });

  it("takes only account abilities, a name, and an expiry in the future", async () => {
    const { caller } = await person();
    const invalid = [
      { name: "", abilities: ["products.read"] },
      { name: "x", abilities: [] },
      { name: "x", abilities: ["support.staff"] },
      { name: "x", abilities: ["products.read", "products.read"] },
      { name: "x", abilities: ["products.read"], expires_at: "2001-01-01T00:00:00Z" },
      { name: "x", abilities: ["products.read"], expires_at: "tomorrow" },
    ];
    for (const input of invalid) {
      // The procedure's input schema refuses most (BAD_REQUEST, zod issues); the service the rest (422 field errors).
      await expect(caller.keys.create(input as never), JSON.stringify(input)).rejects.toMatchObject({
        code: expect.stringMatching(/^(BAD_REQUEST|UNPROCESSABLE_CONTENT)$/),
      });
    }
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const expiring = await caller.keys.create({ name: "week", abilities: ["orders.read"], expires_at: expiresAt });
    recordSecret(expiring.key);
    expect(expiring.record.expires_at).toBe(expiresAt);
    expect(expiring.record.abilities).toEqual(["orders.read"]);
  });

  it("shows and revokes only the person's own keys", async () => {
    const { caller } = await person();
    const other = await createAccount(testDb.db);
    const theirs = await createKey(testDb.db, other.id);
    await expect(caller.keys.revoke({ id: theirs.record.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await request("/api/library", { key: theirs.key })).status).toBe(200);
    expect((await caller.keys.list()).keys).toEqual([]);
  });

  it("lists device sign-in keys with their client beside created ones", async () => {
    const { account, caller } = await person();
    const device = await createKey(testDb.db, account.id, { kind: "device", client: "shelf-cli" });
    const [listed] = (await caller.keys.list()).keys;
    expect(listed).toMatchObject({ id: device.record.id, kind: "device", client: "shelf-cli" });
    expect(listed?.expires_at).not.toBeNull();
  });
});

describe("connected apps", () => {
  it("lists the account's live grants and disconnects one, and only its own", async () => {
    const { account, caller } = await person();
    const other = await createAccount(testDb.db);
    const { schema } = await import("@shelf/db");
    await testDb.db.insert(schema.oauthClients).values({
      id: `client-${account.id}`,
      name: "Claude Desktop",
      redirectUris: ["http://127.0.0.1:33418/callback"],
      registration: "dynamic",
    });
    const [grant, theirs] = await testDb.db
      .insert(schema.oauthGrants)
      .values([
        {
          accountId: account.id,
          clientId: `client-${account.id}`,
          scopes: ["mcp.read", "products.read"],
          redirectUri: "http://127.0.0.1:33418/callback",
        },
        { accountId: other.id, clientId: `client-${account.id}`, scopes: ["mcp.read"], redirectUri: "http://x/cb" },
      ])
      .returning();
    const listed = await caller.connectedApps.list();
    expect(listed).toEqual([
      {
        id: grant?.id,
        client_id: `client-${account.id}`,
        client_name: "Claude Desktop",
        redirect_host: "127.0.0.1:33418",
        scopes: ["mcp.read", "products.read"],
        created_at: expect.any(String),
        last_used_at: null,
      },
    ]);
    await expect(caller.connectedApps.disconnect({ id: theirs?.id as number })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await caller.connectedApps.disconnect({ id: grant?.id as number });
    expect(await caller.connectedApps.list()).toEqual([]);
  });
});

describe("a key's last use and its ended keys", () => {
  it("records the time and client address of a key's use, again soon when the address changes", async () => {
    const { caller } = await person();
    const created = await caller.keys.create({ name: "roaming", abilities: ["products.read"] });
    recordSecret(created.key);
    expect(created.record).toMatchObject({ last_used_at: null, last_used_address: null, revoked_at: null });
    expect((await request("/api/library", { key: created.key, clientAddress: "198.51.100.4" })).status).toBe(200);
    const [first] = (await caller.keys.list()).keys;
    expect(first).toMatchObject({ last_used_address: "198.51.100.4", last_used_at: expect.any(String) });
    // Within the hour, the same address writes nothing; a new one is written once a minute has passed.
    expect((await request("/api/library", { key: created.key, clientAddress: "203.0.113.9" })).status).toBe(200);
    expect((await caller.keys.list()).keys[0]?.last_used_address).toBe("198.51.100.4");
    await testDb.db
      .update(schema.apiKeys)
      .set({ lastUsedAt: sql`now() - interval '2 minutes'` })
      .where(eq(schema.apiKeys.id, created.record.id));
    expect((await request("/api/library", { key: created.key, clientAddress: "203.0.113.9" })).status).toBe(200);
    expect((await caller.keys.list()).keys[0]?.last_used_address).toBe("203.0.113.9");
  });

  it("lists revoked and expired keys apart from the live ones, with when each ended, and another account's never", async () => {
    const { caller } = await person();
    const stranger = await person();
    const kept = await caller.keys.create({ name: "kept", abilities: ["products.read"] });
    const dropped = await caller.keys.create({ name: "dropped", abilities: ["products.read"] });
    const theirs = await stranger.caller.keys.create({ name: "theirs", abilities: ["products.read"] });
    for (const created of [kept, dropped, theirs]) recordSecret(created.key);
    await caller.keys.revoke({ id: dropped.record.id });
    await stranger.caller.keys.revoke({ id: theirs.record.id });
    const listed = await caller.keys.list();
    expect(listed.keys.map((key) => key.name)).toEqual(["kept"]);
    expect(listed.ended).toEqual([expect.objectContaining({ name: "dropped", revoked_at: expect.any(String) })]);
  });
});
