import { createHash } from "node:crypto";
import { schema } from "@shelf/db";
import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../../auth/key-issuing";
import { DomainError } from "../../errors";
import { createAccount, createKey, createProduct, grantEntitlement, recordSecret } from "../../testing";
import { CONTRACT_DEVICE_ABILITIES } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";

const { testDb, request } = withApiSuite({ database: { max: 20 } });

async function liveKeys(accountId: number, productId: number | null) {
  return testDb.db
    .select()
    .from(schema.apiKeys)
    .where(
      and(
        eq(schema.apiKeys.accountId, accountId),
        productId === null ? isNull(schema.apiKeys.productId) : eq(schema.apiKeys.productId, productId),
        isNull(schema.apiKeys.revokedAt),
      ),
    );
}

describe("API key storage", () => {
  it("stores only the SHA-256 hash and the first 14 characters", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const { key, record } = await createApiKey(db, { accountId: account.id, name: "laptop" }, "shelf");
    recordSecret(key);
    expect(key).toMatch(/^shelf_[1-9A-HJ-NP-Za-km-z]{32}$/);
    expect(record.prefix).toBe(key.slice(0, 14));
    const [row] = await db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, record.id));
    expect(row?.hash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(row?.prefix).toHaveLength(14);
    const dump = await testDb.sql`select * from api_keys where id = ${record.id}`;
    expect(JSON.stringify(dump)).not.toContain(key);
    expect(record.abilities).toEqual(["products.read", "mcp.read", "device.install"]);
  });

  it("uses the configured brand and gives device sign-in keys their six abilities and a 90-day idle expiry", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const { key, record } = await createApiKey(db, { accountId: account.id, kind: "device", client: "cli" }, "acme");
    recordSecret(key);
    expect(key.startsWith("acme_")).toBe(true);
    expect(record.abilities).toEqual(CONTRACT_DEVICE_ABILITIES);
    const days = (Date.parse(record.expires_at as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
  });

  it("refuses unknown abilities and past expiry dates", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    await expect(
      createApiKey(db, { accountId: account.id, abilities: ["root"] as never }, "shelf"),
    ).rejects.toMatchObject({ errors: { "abilities.0": [expect.any(String)] } });
    await expect(
      createApiKey(db, { accountId: account.id, expiresAt: new Date(Date.now() - 1000) }, "shelf"),
    ).rejects.toMatchObject({ errors: { expiresAt: ["must be in the future"] } });
  });
});

describe("the key lookup on each request", () => {
  const row = async (id: number) =>
    (
      await testDb.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, id))
    )[0] as typeof schema.apiKeys.$inferSelect;
  const setKey = (id: number, values: Partial<typeof schema.apiKeys.$inferInsert>) =>
    testDb.db.update(schema.apiKeys).set(values).where(eq(schema.apiKeys.id, id));

  it("refuses a key from the moment it expires or is revoked, and takes it until then", async () => {
    const account = await createAccount(testDb.db);
    const { key, record } = await createKey(testDb.db, account.id, { abilities: ["products.read"] });
    expect((await request("/api/library", { key })).status).toBe(200);
    await setKey(record.id, { expiresAt: new Date(Date.now() + 60_000) });
    expect((await request("/api/library", { key })).status).toBe(200);
    await setKey(record.id, { expiresAt: new Date(Date.now() - 1) });
    const expired = await request("/api/library", { key });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe("invalid_api_key");
    await setKey(record.id, { expiresAt: null, revokedAt: new Date() });
    expect((await request("/api/library", { key })).status).toBe(401);
  });

  it("records use at most once an hour, sooner from a new address, and pushes a device key's idle expiry out", async () => {
    const account = await createAccount(testDb.db);
    const { key, record } = await createKey(testDb.db, account.id, { kind: "device" });
    expect((await request("/api/client-config", { key })).status).toBe(200);
    const first = await row(record.id);
    expect(first.lastUsedAt).not.toBeNull();
    const idleDays = ((first.expiresAt as Date).getTime() - Date.now()) / 86_400_000;
    expect(idleDays).toBeGreaterThan(89.9);
    // Used 30 minutes ago from the same address: nothing is written.
    const halfHourAgo = new Date(Date.now() - 30 * 60_000);
    await setKey(record.id, { lastUsedAt: halfHourAgo, expiresAt: new Date(Date.now() + 86_400_000) });
    expect((await request("/api/client-config", { key })).status).toBe(200);
    expect((await row(record.id)).lastUsedAt).toEqual(halfHourAgo);
    // From another address after more than a minute: written, with the address.
    await setKey(record.id, { lastUsedAddress: "192.0.2.7" });
    expect((await request("/api/client-config", { key })).status).toBe(200);
    const moved = await row(record.id);
    expect(moved.lastUsedAt?.getTime()).toBeGreaterThan(halfHourAgo.getTime());
    expect(moved.lastUsedAddress).not.toBe("192.0.2.7");
    expect(((moved.expiresAt as Date).getTime() - Date.now()) / 86_400_000).toBeGreaterThan(89.9);
    // An hour and more since the last write: written again.
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await setKey(record.id, { lastUsedAt: twoHoursAgo });
    expect((await request("/api/client-config", { key })).status).toBe(200);
    expect((await row(record.id)).lastUsedAt?.getTime()).toBeGreaterThan(twoHoursAgo.getTime());
  });
});

describe("key slots", () => {
  it("never makes a fourth live key in a scope under 10 parallel creations", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const product = await createProduct(db);
    const attempt = (productId: number | null) =>
      createApiKey(db, { accountId: account.id, productId }, "shelf").then(
        ({ key }) => {
          recordSecret(key);
          return "created";
        },
        (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
      );
    const accountWide = await Promise.all(Array.from({ length: 10 }, () => attempt(null)));
    const productScoped = await Promise.all(Array.from({ length: 10 }, () => attempt(product.id)));
    for (const outcomes of [accountWide, productScoped]) {
      expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome === "api_key_limit_reached")).toHaveLength(7);
    }
    expect(await liveKeys(account.id, null)).toHaveLength(3);
    expect(await liveKeys(account.id, product.id)).toHaveLength(3);
  });

  it("frees a slot when a key is revoked or expires", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push(await createKey(db, account.id));
    await expect(createKey(db, account.id)).rejects.toMatchObject({ code: "api_key_limit_reached" });
    await revokeApiKey(db, account.id, keys[0]!.record.id);
    await createKey(db, account.id);
    await db
      .update(schema.apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(schema.apiKeys.id, keys[1]!.record.id));
    await createKey(db, account.id);
  });

  it("lets device sign-in replace the least recently used key of the same client when the scope is full", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const first = await createKey(db, account.id, { kind: "device", client: "cli" });
    const second = await createKey(db, account.id, { kind: "device", client: "cli" });
    await createKey(db, account.id, { kind: "device", client: "desktop" });
    await db.update(schema.apiKeys).set({ lastUsedAt: new Date() }).where(eq(schema.apiKeys.id, first.record.id));
    const fourth = await createKey(db, account.id, { kind: "device", client: "cli" });
    const live = (await liveKeys(account.id, null)).map((key) => key.id).sort();
    expect(live).toEqual(
      [first.record.id, fourth.record.id, live.find((id) => id !== first.record.id && id !== fourth.record.id)].sort(),
    );
    expect(live).not.toContain(second.record.id);
    await expect(createKey(db, account.id, { kind: "device", client: "tablet" })).rejects.toMatchObject({
      code: "api_key_limit_reached",
    });
  });
});

describe("key use", () => {
  it("refuses a revoked key from the very next request on", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const { key, record } = await createKey(db, account.id);
    expect((await request("/api/library", { key })).status).toBe(200);
    await revokeApiKey(db, account.id, record.id);
    const response = await request("/api/library", { key });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String), error: "invalid_api_key" });
  });

  it("revokes only the account's own keys: another account's key id is not found and stays valid", async () => {
    const { db } = testDb;
    const owner = await createAccount(db);
    const other = await createAccount(db);
    const { key, record } = await createKey(db, other.id);
    const attempt = await revokeApiKey(db, owner.id, record.id).catch((error: unknown) => error);
    expect(attempt).toBeInstanceOf(DomainError);
    expect((attempt as DomainError).code).toBe("not_found");
    expect((await request("/api/library", { key })).status).toBe(200);
    const [stored] = await db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, record.id));
    expect(stored?.revokedAt).toBeNull();
  });

  it("records use at most once an hour and extends a device key's idle expiry on that write", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const product = await createProduct(db);
    await grantEntitlement(db, account.id, product.id);
    const { key, record } = await createKey(db, account.id, { kind: "device", client: "cli" });
    const read = async () => (await db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, record.id)))[0]!;
    await request("/api/library", { key });
    const afterFirst = await read();
    expect(afterFirst.lastUsedAt).not.toBeNull();
    await request("/api/library", { key });
    expect((await read()).lastUsedAt).toEqual(afterFirst.lastUsedAt);

    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    const soon = new Date(Date.now() + 86_400_000);
    await db
      .update(schema.apiKeys)
      .set({ lastUsedAt: twoHoursAgo, expiresAt: soon })
      .where(eq(schema.apiKeys.id, record.id));
    await request("/api/library", { key });
    const extended = await read();
    expect(extended.lastUsedAt!.getTime()).toBeGreaterThan(twoHoursAgo.getTime());
    expect(extended.expiresAt!.getTime() - Date.now()).toBeGreaterThan(89 * 86_400_000);
  });

  it("accepts keys only from the Authorization Bearer header", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const { key } = await createKey(db, account.id);
    expect((await request(`/api/library?api_key=${key}`)).body.error).toBe("missing_api_key");
    expect((await request("/api/library", { headers: { authorization: `Basic ${key}` } })).body.error).toBe(
      "invalid_api_key",
    );
    expect((await request("/api/library", { headers: { authorization: `bearer   ${key}` } })).status).toBe(200);
    expect((await request("/api/library", { headers: { cookie: `api_key=${key}` } })).body.error).toBe(
      "missing_api_key",
    );
  });
});
