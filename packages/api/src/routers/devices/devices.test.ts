import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAbilities } from "../../abilities";
import { revokeDevice } from "../../client-policy";
import type { Delivery } from "../../delivery";
import {
  callerFor,
  createAccountWithKey,
  createApiClient,
  createKey,
  createProduct,
  grantEntitlement,
  recordSecret,
  signedInCaller,
} from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { createTestDelivery } from "../../testing/delivery";
import { securityEventKinds } from "../../testing/security-events";
import { grantPass } from "../subscriptions/admin-service";
import { BulkActivateData, BundlesData, DeviceEntitlementsData, InstallRecordData, UsageData } from "./schemas";

let testDb: TestDatabase;
let delivery: Delivery;
let request: ReturnType<typeof createApiClient>;
let statements = 0;

beforeAll(async () => {
  testDb = await createTestDatabase({ onQuery: () => statements++ });
  delivery = await createTestDelivery();
  request = createApiClient(testDb.db, { delivery });
});
afterAll(() => testDb.drop());

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

/** An account signed in on a device: a device key with the six device abilities, and products it holds. */
async function device(productCount = 2) {
  const { account, key, record } = await createAccountWithKey(testDb.db, { kind: "device", client: "shelf-cli" });
  const products = [];
  for (let index = 0; index < productCount; index++) {
    const product = await createProduct(testDb.db, { name: `Tool ${index} ${Math.random()}` });
    await grantEntitlement(testDb.db, account.id, product.id);
    products.push(product);
  }
  return { account, key, record, products };
}

const post = (path: string, key: string, body: unknown) => request(path, { method: "POST", key, body });

describe("GET /api/device/entitlements and /api/bundles", () => {
  it("tells a device what its account holds, which products it has keys for, its passes, bundles and itself", async () => {
    const { account, key, products } = await device(2);
    const [first, second] = products as [(typeof products)[0], (typeof products)[0]];
    const [bundle] = await testDb.db
      .insert(schema.bundles)
      .values({ slug: `suite-${account.id}`, name: "Suite" })
      .returning();
    const third = await createProduct(testDb.db, { name: "Suite extra" });
    await testDb.db.insert(schema.bundleProducts).values([
      { bundleId: bundle?.id as number, productId: first.id },
      { bundleId: bundle?.id as number, productId: third.id },
    ]);
    await grantEntitlement(testDb.db, account.id, third.id, { grantType: "bundle", bundleId: bundle?.id });
    await grantPass(testDb.db, { accountId: account.id, until: new Date(Date.now() + 30 * DAY_MS), tier: "pro" });

    const before = await request("/api/device/entitlements", { key });
    expect(before.status).toBe(200);
    expect(contractMismatch(DeviceEntitlementsData, before.text)).toBeNull();
    expect(before.body.products.map((product: { id: number }) => product.id).sort()).toEqual(
      [first.id, second.id, third.id].sort(),
    );
    expect(before.body.products.every((product: { has_device_key: boolean }) => !product.has_device_key)).toBe(true);
    expect(before.body.device).toEqual({ id: null, name: null, activated_at: null });
    expect(before.body.user).toEqual({ id: account.id, email: account.email, name: account.name });
    expect(before.body.subscriptions).toEqual([
      expect.objectContaining({ is_pass: true, tier: "pro", status: "active", product_id: null }),
    ]);
    expect(before.body.bundles).toEqual([{ id: bundle?.id, name: "Suite", product_ids: [first.id, third.id].sort() }]);

    const bundles = await request("/api/bundles", { key });
    expect(contractMismatch(BundlesData, bundles.text)).toBeNull();
    expect(bundles.body.bundles[0]).toMatchObject({ slug: `suite-${account.id}`, products: expect.any(Array) });

    await post("/api/license/check", key, { product_id: first.id, device_id: "MY-MAC", device_name: "My Mac" });
    const activated = await post("/api/device/bulk-activate", key, {});
    expect(activated.status).toBe(200);
    const after = await request("/api/device/entitlements", { key });
    expect(after.body.device).toMatchObject({
      id: expect.any(Number),
      name: "My Mac",
      activated_at: expect.any(String),
    });
    for (const product of after.body.products) {
      const issued = activated.body.keys.find((entry: { product_id: number }) => entry.product_id === product.id);
      expect(product).toMatchObject({ has_device_key: true, license_key_prefix: issued.prefix });
    }
    // Another device of the same account holds no keys of its own yet.
    const other = await createKey(testDb.db, account.id, { kind: "device", client: "desktop" });
    const otherView = await request("/api/device/entitlements", { key: other.key });
    expect(otherView.body.products.every((product: { has_device_key: boolean }) => !product.has_device_key)).toBe(true);
  });

  it("shows a product key only its product", async () => {
    const { account, products } = await device(2);
    const scoped = await createKey(testDb.db, account.id, { productId: products[1]?.id, kind: "device" });
    const response = await request("/api/device/entitlements", { key: scoped.key });
    expect(response.body.products.map((product: { id: number }) => product.id)).toEqual([products[1]?.id]);
  });
});

describe("POST /api/device/bulk-activate", () => {
  it("issues one working product key per held product, with no more abilities than the caller, and replaces them on repeat", async () => {
    const { account, key, products } = await device(3);
    const response = await post("/api/device/bulk-activate", key, {});
    expect(response.status).toBe(200);
    expect(contractMismatch(BulkActivateData, response.text)).toBeNull();
    const { keys } = response.body;
    for (const issued of keys) recordSecret(issued.key);
    expect(keys.map((issued: { product_id: number }) => issued.product_id).sort()).toEqual(
      products.map((product) => product.id).sort(),
    );
    for (const issued of keys) {
      expect(issued.abilities).toEqual([...defaultAbilities.device]);
      expect(issued.expires_at).not.toBeNull();
      const license = await post("/api/license/check", issued.key, { product_id: issued.product_id, device_id: "X" });
      expect(license.status).toBe(200);
      const elsewhere = products.find((product) => product.id !== issued.product_id);
      const scoped = await post("/api/license/check", issued.key, { product_id: elsewhere?.id, device_id: "X" });
      expect(scoped.status).toBe(403);
    }

    const again = await post("/api/device/bulk-activate", key, {});
    for (const issued of again.body.keys) recordSecret(issued.key);
    expect((await post("/api/license/check", keys[0].key, { product_id: keys[0].product_id })).status).toBe(401);
    const live = await testDb.db.$count(
      schema.apiKeys,
      and(eq(schema.apiKeys.accountId, account.id), isNull(schema.apiKeys.revokedAt)),
    );
    expect(live).toBe(1 + products.length);

    // A caller holding fewer abilities issues keys holding as few.
    const narrow = await createKey(testDb.db, account.id, {
      kind: "device",
      client: "narrow",
      abilities: ["device.activate", "products.read"],
    });
    const narrowed = await post("/api/device/bulk-activate", narrow.key, {});
    for (const issued of narrowed.body.keys) recordSecret(issued.key);
    expect(narrowed.body.keys[0].abilities).toEqual(["products.read", "device.activate"]);
  });

  it("issues nothing at all when one product has no free slot, and says which", async () => {
    const { account, key, products } = await device(3);
    const full = products[1] as (typeof products)[0];
    for (let index = 0; index < 3; index++) await createKey(testDb.db, account.id, { productId: full.id });
    const before = await testDb.db.$count(schema.apiKeys, eq(schema.apiKeys.accountId, account.id));
    const response = await post("/api/device/bulk-activate", key, {});
    expect(response.status).toBe(409);
    expect(response.body.error).toBe("api_key_limit_reached");
    expect(response.body.message).toContain(`product ${full.id}`);
    expect(await testDb.db.$count(schema.apiKeys, eq(schema.apiKeys.accountId, account.id))).toBe(before);
  });

  it("gives up a full scope's least recently used key of the same client, as device sign-in does", async () => {
    const { account, key, products } = await device(1);
    const product = products[0] as (typeof products)[0];
    const older = await createKey(testDb.db, account.id, {
      productId: product.id,
      kind: "device",
      client: "shelf-cli",
    });
    await createKey(testDb.db, account.id, { productId: product.id });
    await createKey(testDb.db, account.id, { productId: product.id });
    const response = await post("/api/device/bulk-activate", key, {});
    expect(response.status).toBe(200);
    recordSecret(response.body.keys[0].key);
    expect((await request("/api/device/entitlements", { key: older.key })).status).toBe(401);
  });

  it("keeps every scope within three live keys under ten activations at once", async () => {
    const { account, key, products } = await device(2);
    const other = await createKey(testDb.db, account.id, { kind: "device", client: "desktop" });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => post("/api/device/bulk-activate", index % 2 ? key : other.key, {})),
    );
    for (const response of responses) {
      expect(response.status).toBe(200);
      for (const issued of response.body.keys) recordSecret(issued.key);
    }
    for (const product of products) {
      const live = await testDb.db.$count(
        schema.apiKeys,
        and(eq(schema.apiKeys.productId, product.id), isNull(schema.apiKeys.revokedAt)),
      );
      // One per activating device: each activation replaced that device's earlier one.
      expect(live).toBe(2);
    }
  });
});

describe("POST /api/device/installs", () => {
  it("records an install (201), the same record for a retried report, and refuses what the account does not hold", async () => {
    const { key, products } = await device(1);
    const product = products[0] as (typeof products)[0];
    const body = {
      product_id: product.id,
      version: "1.2.3",
      bundle_id: "com.example.tool",
      installed_at: "2026-05-01T10:00:00Z",
    };
    const first = await post("/api/device/installs", key, body);
    expect(first.status).toBe(201);
    expect(contractMismatch(InstallRecordData, first.text)).toBeNull();
    // The record is what was sent, its time written back as the API writes every time: with milliseconds.
    expect(first.body.install).toMatchObject({ ...body, installed_at: "2026-05-01T10:00:00.000Z" });
    const retry = await post("/api/device/installs", key, body);
    expect(retry.status).toBe(201);
    expect(retry.body.install.id).toBe(first.body.install.id);
    const now = await post("/api/device/installs", key, { product_id: product.id, version: "1.2.4" });
    expect(now.status).toBe(201);
    expect(Math.abs(Date.parse(now.body.install.installed_at) - Date.now())).toBeLessThan(60_000);

    const stranger = await createProduct(testDb.db);
    expect((await post("/api/device/installs", key, { product_id: stranger.id, version: "1" })).body.error).toBe(
      "product_entitlement_required",
    );
    expect((await post("/api/device/installs", key, { product_id: 2_000_000_000, version: "1" })).status).toBe(404);
    const future = await post("/api/device/installs", key, {
      product_id: product.id,
      version: "1",
      installed_at: new Date(Date.now() + DAY_MS).toISOString(),
    });
    expect(future.status).toBe(422);
    expect(future.body.errors.installed_at).toEqual(["must not be in the future"]);
  });

  it("takes each limit of contract section 8 at its boundary: version 64, bundle_id 255", async () => {
    const { key, products } = await device(1);
    const product_id = products[0]?.id;
    const send = (body: Record<string, unknown>) => post("/api/device/installs", key, { product_id, ...body });
    expect((await send({ version: "v".repeat(64) })).status).toBe(201);
    expect((await send({ version: "v".repeat(65) })).body.errors.version).toBeDefined();
    expect((await send({ version: "1", bundle_id: "b".repeat(255) })).status).toBe(201);
    expect((await send({ version: "1", bundle_id: "b".repeat(256) })).body.errors.bundle_id).toBeDefined();
    for (const body of [
      {},
      { version: "" },
      { version: null },
      { version: 1 },
      { version: "1", installed_at: "yesterday" },
    ]) {
      expect((await send(body)).status, JSON.stringify(body)).toBe(422);
    }
  });
});

describe("POST /api/device/usage", () => {
  const usageRows = (accountId: number) =>
    testDb.db
      .select()
      .from(schema.deviceUsage)
      .where(eq(schema.deviceUsage.accountId, accountId))
      .orderBy(schema.deviceUsage.productId, schema.deviceUsage.usageDate);

  it("stores one row per product, key and day, and a day uploaded again overwrites it", async () => {
    const { account, key, products } = await device(2);
    const [a, b] = products as [(typeof products)[0], (typeof products)[0]];
    const days = [
      { product_id: a.id, usage_date: day(-2), launches: 3, commands: { sync: 2 } },
      { product_id: a.id, usage_date: day(-1), launches: 5 },
      { product_id: b.id, usage_date: day(-1), launches: 0 },
    ];
    const first = await post("/api/device/usage", key, { consent: true, days });
    expect(first.status).toBe(200);
    expect(contractMismatch(UsageData, first.text)).toBeNull();
    expect(first.body).toEqual({ consent: true, stored: 3 });
    const written = await usageRows(account.id);
    const again = await post("/api/device/usage", key, { consent: true, days });
    expect(again.body).toEqual({ consent: true, stored: 3 });
    // The same figures again are stored already: no row is rewritten.
    expect(await usageRows(account.id)).toEqual(written);

    const corrected = await post("/api/device/usage", key, {
      consent: true,
      days: [{ product_id: a.id, usage_date: day(-1), launches: 9, commands: { export: 1 } }],
    });
    expect(corrected.body.stored).toBe(1);
    const rows = await usageRows(account.id);
    expect(rows).toHaveLength(3);
    expect(rows.find((row) => row.productId === a.id && row.usageDate === day(-1))).toMatchObject({
      launches: 9,
      commands: { export: 1 },
    });
    const before = written.find((row) => row.productId === a.id && row.usageDate === day(-1));
    const after = rows.find((row) => row.productId === a.id && row.usageDate === day(-1));
    expect(after?.updatedAt.getTime()).toBeGreaterThan(before?.updatedAt.getTime() as number);
    // Command names are the client's text, quotes and backslashes included, and come back as they were sent.
    const names = { 'say "hi"': 1, "back\\slash": 2, NULL: 3, "{,}": 4 };
    await post("/api/device/usage", key, {
      consent: true,
      days: [{ product_id: b.id, usage_date: day(-1), launches: 1, commands: names }],
    });
    expect((await usageRows(account.id)).find((row) => row.productId === b.id)?.commands).toEqual(names);
    // Another device of the account keeps rows of its own.
    const other = await createKey(testDb.db, account.id, { kind: "device", client: "desktop" });
    await post("/api/device/usage", other.key, { consent: true, days });
    expect(await usageRows(account.id)).toHaveLength(6);
  });

  it("rejects the whole upload for one bad day, and stores nothing", async () => {
    const { account, key, products } = await device(1);
    const held = products[0]?.id as number;
    const stranger = await createProduct(testDb.db);
    const good = { product_id: held, usage_date: day(-1), launches: 1 };
    const cases: [unknown[], string][] = [
      [[good, { product_id: stranger.id, usage_date: day(-1), launches: 1 }], "days.1.product_id"],
      [[good, { product_id: held, usage_date: day(3), launches: 1 }], "days.1.usage_date"],
      [[good, { ...good, launches: 2 }], "days.1"],
      [[good, { product_id: held, usage_date: "2026-02-30", launches: 1 }], "days.1.usage_date"],
      [[good, { product_id: held, usage_date: day(-2), launches: -1 }], "days.1.launches"],
    ];
    for (const [days, field] of cases) {
      const response = await post("/api/device/usage", key, { consent: true, days });
      expect(response.status, field).toBe(422);
      expect(Object.keys(response.body.errors), field).toContain(field);
    }
    expect(await usageRows(account.id)).toHaveLength(0);
    const withoutConsent = await post("/api/device/usage", key, { consent: false, days: [good] });
    expect(withoutConsent.body).toEqual({ consent: false, stored: 0 });
    expect(await usageRows(account.id)).toHaveLength(0);
  });

  it("takes each limit of contract section 8 at its boundary: 1 to 200 days, launches 0 to 1,000,000", async () => {
    const { key, products } = await device(1);
    const product_id = products[0]?.id;
    const days = (count: number, launches = 1) =>
      Array.from({ length: count }, (_, index) => ({ product_id, usage_date: day(-index), launches }));
    const send = (list: unknown[]) => post("/api/device/usage", key, { consent: true, days: list });
    expect((await send(days(200))).body).toEqual({ consent: true, stored: 200 });
    expect((await send(days(201))).body.errors.days).toBeDefined();
    expect((await send([])).body.errors.days).toBeDefined();
    expect((await send(days(1, 1_000_000))).status).toBe(200);
    expect((await send(days(1, 0))).status).toBe(200);
    expect((await send(days(1, 1_000_001))).body.errors["days.0.launches"]).toBeDefined();
    for (const body of [
      { days: days(1) },
      { consent: "yes", days: days(1) },
      { consent: true },
      { consent: true, days: [{ product_id, usage_date: day(0), launches: 1.5 }] },
      { consent: true, days: [{ product_id, usage_date: day(0), launches: 1, commands: { "": 1 } }] },
      { consent: true, days: [{ product_id, usage_date: day(0), launches: 1, commands: { run: -1 } }] },
    ]) {
      expect((await post("/api/device/usage", key, body)).status, JSON.stringify(body)).toBe(422);
    }
  });

  it("costs the same number of SQL statements for 30 days as for 200", async () => {
    const { key, products } = await device(1);
    const product_id = products[0]?.id;
    const caller = await callerFor(testDb.db, key, delivery);
    const counts = [];
    for (const count of [1, 30, 200]) {
      const days = Array.from({ length: count }, (_, index) => ({
        product_id: product_id as number,
        usage_date: day(-index),
        launches: 1,
      }));
      const before = statements;
      await caller.device.usage({ consent: true, days });
      counts.push(statements - before);
    }
    expect(new Set(counts).size).toBe(1);
    expect(counts[0]).toBe(1);
  });
});

describe("POST /api/cli/device/logout", () => {
  it("answers 204 with no body and revokes the calling key from the next request on", async () => {
    const { account, key } = await device(0);
    const other = await createKey(testDb.db, account.id, { kind: "device", client: "desktop" });
    const response = await post("/api/cli/device/logout", key, undefined);
    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    const next = await request("/api/device/entitlements", { key });
    expect(next.status).toBe(401);
    expect(next.body.error).toBe("invalid_api_key");
    expect((await request("/api/device/entitlements", { key: other.key })).status).toBe(200);
  });
});

describe("the devices page (a signed-in person)", () => {
  it("lists the account's devices with their seats, and releases one of its own only", async () => {
    const { account, key, products } = await device(1);
    const [product] = products as [(typeof products)[0]];
    const checked = await post("/api/license/check", key, { product_id: product.id, device_id: "desk-mac" });
    expect(checked.status, checked.text).toBe(200);
    const stranger = await device(1);
    await post("/api/license/check", stranger.key, {
      product_id: (stranger.products[0] as (typeof products)[0]).id,
      device_id: "their-pc",
    });
    const { caller } = await signedInCaller(testDb.db, account.id);
    const seats = await caller.device.seats();
    expect(seats).toEqual([
      expect.objectContaining({
        device_id: "desk-mac",
        products: [expect.objectContaining({ product_id: product.id, product_name: product.name })],
      }),
    ]);
    const [theirs] = await (await signedInCaller(testDb.db, stranger.account.id)).caller.device.seats();
    await expect(caller.device.release({ id: theirs?.id as number })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller.device.release({ id: seats[0]?.id as number })).resolves.toMatchObject({
      device_id: "desk-mac",
      released_product_ids: [product.id],
    });
    expect((await caller.device.seats())[0]?.products).toEqual([]);
  });
});

describe("blocking a device from the product page (a signed-in person)", () => {
  it("revokes its own device from a product it holds, as policy:revoke does, and never another account's", async () => {
    const { account, key, products } = await device(1);
    const [product] = products as [(typeof products)[0]];
    expect((await post("/api/license/check", key, { product_id: product.id, device_id: "lost-mac" })).status).toBe(200);
    const stranger = await device(1);
    const strangerProduct = stranger.products[0] as (typeof products)[0];
    await post("/api/license/check", stranger.key, { product_id: strangerProduct.id, device_id: "their-pc" });
    const { caller } = await signedInCaller(testDb.db, account.id);
    const [mine] = await caller.device.seats();
    const [theirs] = await (await signedInCaller(testDb.db, stranger.account.id)).caller.device.seats();
    // Another account's device, and a product the account neither holds nor seated the device on: not found.
    await expect(caller.device.block({ id: theirs?.id as number, product: strangerProduct.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(caller.device.block({ id: mine?.id as number, product: strangerProduct.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    const blocked = await caller.device.block({ id: mine?.id as number, product: product.id });
    expect(blocked).toMatchObject({ product_id: product.id, device_id: "lost-mac", seats_released: 1 });
    const again = await post("/api/license/check", key, { product_id: product.id, device_id: "lost-mac" });
    // Worded for a block by the account's owner, not by the seller.
    expect(again.body).toMatchObject({ licensed: false, code: "device_revoked" });
    expect(again.body.message).toContain("blocked from the product by the account's owner");
    const theirCheck = await post("/api/license/check", stranger.key, {
      product_id: strangerProduct.id,
      device_id: "their-pc",
    });
    expect(theirCheck.body).toMatchObject({ licensed: true, code: "valid" });
  });

  it("lists the blocked device as blocked, not released, and lets its owner unblock it; a seller's block stays", async () => {
    const { account, key, products } = await device(2);
    const [product, second] = products as [(typeof products)[0], (typeof products)[0]];
    for (const held of [product, second]) {
      expect((await post("/api/license/check", key, { product_id: held.id, device_id: "found-mac" })).status).toBe(200);
    }
    const { caller } = await signedInCaller(testDb.db, account.id);
    const [mine] = await caller.device.seats();
    const id = mine?.id as number;
    await caller.device.block({ id, product: product.id });
    // The seller cuts the same device off the second product (the operator's policy:revoke).
    await revokeDevice(testDb.db, second.id, "found-mac");
    const [listed] = await caller.device.seats();
    expect(listed?.products).toEqual([]);
    expect(listed?.blocked).toEqual([
      expect.objectContaining({ product_id: product.id, by: "owner" }),
      expect.objectContaining({ product_id: second.id, by: "seller" }),
    ]);

    // Another account cannot lift it, nor can the owner lift the seller's block.
    const stranger = await device(1);
    const other = (await signedInCaller(testDb.db, stranger.account.id)).caller;
    await expect(other.device.unblock({ id, product: product.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller.device.unblock({ id, product: second.id })).rejects.toMatchObject({ code: "NOT_FOUND" });

    await expect(caller.device.unblock({ id, product: product.id })).resolves.toMatchObject({
      product_id: product.id,
      device_id: "found-mac",
    });
    await expect(caller.device.unblock({ id, product: product.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const back = await post("/api/license/check", key, { product_id: product.id, device_id: "found-mac" });
    expect(back.body).toMatchObject({ licensed: true, code: "valid" });
    const still = await post("/api/license/check", key, { product_id: second.id, device_id: "found-mac" });
    expect(still.body).toMatchObject({ licensed: false, code: "device_revoked" });
    expect((await caller.device.seats())[0]?.blocked).toEqual([expect.objectContaining({ product_id: second.id })]);
    expect(await securityEventKinds(testDb.db, account.id)).toContain("device_unblocked");
  });
});
