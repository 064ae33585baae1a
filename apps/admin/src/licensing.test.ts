import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  callerFor,
  createAccount,
  createAccountWithKey,
  createKey,
  createProduct,
  createTestDelivery,
} from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliHarness } from "./cli-harness";

let testDb: TestDatabase;
let dataDir: string;
let extraEnv: Record<string, string> = {};

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-admin-licensing-"));
});
afterAll(async () => {
  await testDb.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const { admin, adminJson, expectFailure } = cliHarness(() => ({ databaseUrl: testDb.url, dataDir, env: extraEnv }));
const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;

describe("signing:rotate", () => {
  it("rotates the certificate key and leaves the Sparkle key apps pin, unless --sparkle says otherwise", async () => {
    const sparkle = await adminJson("signing:public-key");
    const rotated = await adminJson("signing:rotate");
    expect(rotated).toMatchObject({ purpose: "jws", previous: { kid: sparkle.kid, retired: false, use: "sparkle" } });
    expect(rotated.file).toBe(path.join(dataDir, "signing-keys.json"));
    expect((await adminJson("signing:public-key")).kid).toBe(sparkle.kid);

    const text = await admin("signing:rotate", "--sparkle");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/SUPublicEDKey: [A-Za-z0-9+/]{43}=/);
    expect(text.stdout).toMatch(/refuse updates signed with this one/);
    const after = await adminJson("signing:public-key");
    expect(after.kid).not.toBe(sparkle.kid);
  });

  it("writes the rotation of a key set kept in the environment to another file, and never in place", async () => {
    const document = await fs.readFile(path.join(dataDir, "signing-keys.json"), "utf8");
    extraEnv = { SHELF_SIGNING_KEYS: document };
    try {
      await expectFailure(["signing:rotate"], /SHELF_SIGNING_KEYS.*--out/);
      const out = path.join(dataDir, "rotated", "keys.json");
      const rotated = await adminJson("signing:rotate", "--out", out);
      expect(rotated.file).toBe(out);
      const written = JSON.parse(await fs.readFile(out, "utf8"));
      expect(written.keys.map((key: { kid: string }) => key.kid)).toContain(rotated.kid);
      expect(await fs.readFile(path.join(dataDir, "signing-keys.json"), "utf8")).toBe(document);
      extraEnv = { SHELF_SIGNING_KEYS: document, SHELF_SIGNING_KEYS_FILE: out };
      await expectFailure(["signing:public-key"], /set one of them/);
    } finally {
      extraEnv = {};
    }
  });
});

describe("policy:set, policy:revoke and policy:restore", () => {
  it("changes the policy with a new version each time, and refuses bad values in one line", async () => {
    const first = await adminJson("policy:set", "--min-client-version", "1.4.0", "--recheck-hours", "12");
    expect(first).toMatchObject({ min_client_version: "1.4.0", recheck_hours: 12, ttl_days: 14 });
    const second = await adminJson("policy:set", "--ttl-days", "30");
    expect(second).toMatchObject({ min_client_version: "1.4.0", ttl_days: 30, version: first.version + 1 });
    await expectFailure(["policy:set"], /at least one of/);
    await expectFailure(["policy:set", "--min-client-version", "newest"], /--min-client-version must be a version/);
    await expectFailure(["policy:set", "--ttl-days", "400"], /--ttl-days/);
    await expectFailure(["policy:set", "--recheck-hours", "0"], /--recheck-hours must be a whole number of at least 1/);
  });

  it("revokes a device for a product, releasing its seat, and restores it", async () => {
    const account = await createAccount(testDb.db);
    const product = await createProduct(testDb.db);
    await testDb.db.insert(schema.entitlements).values({ accountId: account.id, productId: product.id });
    const { key } = await createKey(testDb.db, account.id, { kind: "device" });
    const caller = await callerFor(testDb.db, key, await createTestDelivery());
    await caller.license.check({ product_id: product.id, device_id: "ROGUE-MAC" });

    const revoked = await adminJson("policy:revoke", "--product", String(product.id), "--device", "ROGUE-MAC");
    expect(revoked).toMatchObject({ product_id: product.id, device_id: "ROGUE-MAC", seats_released: 1 });
    expect((await caller.license.check({ product_id: product.id, device_id: "ROGUE-MAC" })).code).toBe(
      "device_revoked",
    );
    const restored = await adminJson("policy:restore", "--product", String(product.id), "--device", "ROGUE-MAC");
    expect(restored.version).toBe(revoked.version + 1);
    await expectFailure(["policy:restore", "--product", String(product.id), "--device", "ROGUE-MAC"], /not revoked/);
    await expectFailure(["policy:revoke", "--product", "2000000000", "--device", "X"], /Product not found/);
    await expectFailure(["policy:revoke", "--product", String(product.id)], /--device is required/);
  });
});

describe("pass:grant", () => {
  it("grants a pass the pass check sees, and refuses a date in the past or an unknown account", async () => {
    const email = uniqueEmail("pass");
    const account = await createAccount(testDb.db, { email });
    const pass = await adminJson(
      "pass:grant",
      "--email",
      email,
      "--until",
      "2030-01-01",
      "--grace-days",
      "10",
      "--tier",
      "studio",
      "--features",
      "sync, ai,sync",
      "--apps",
      "com.example.a,tool-b",
    );
    expect(pass).toMatchObject({
      account_id: account.id,
      is_pass: true,
      tier: "studio",
      features: ["sync", "ai"],
      allowed_apps: ["com.example.a", "tool-b"],
      ends_at: "2030-01-01T00:00:00.000Z",
      grace_days: 10,
    });
    const { key } = await createKey(testDb.db, account.id, { abilities: ["device.entitlements"] });
    const check = await (await callerFor(testDb.db, key)).license.passCheck({});
    expect(check).toMatchObject({ has_active_pass: true, tier: "studio", expires_at: "2030-01-01T00:00:00.000Z" });
    await expectFailure(["pass:grant", "--email", email, "--until", "2020-01-01"], /--until must be in the future/);
    await expectFailure(["pass:grant", "--email", uniqueEmail("nobody"), "--until", "2030-01-01"], /No account/);
    await expectFailure(
      ["pass:grant", "--email", email, "--until", "2030-01-01", "--grace-days", "366"],
      /--grace-days/,
    );
  });
});

describe("product:update, device:list and device:deactivate", () => {
  it("sets the seller's purchase URL that the catalog gives, refuses anything but http(s), and removes it", async () => {
    const product = await createProduct(testDb.db);
    await expectFailure(
      ["product:update", "--id", String(product.id), "--purchase-url", "javascript:alert(1)"],
      /an http or https URL/,
    );
    const store = "https://store.example.test/buy/notes?ref=shelf";
    const bought = await adminJson("product:update", "--id", String(product.id), "--purchase-url", store);
    expect(bought).toMatchObject({ purchase_url: store, device_limit: null });
    const { key: reader } = await createAccountWithKey(testDb.db);
    const listedProduct = (await (await callerFor(testDb.db, reader)).products.get({ product: product.id })).product;
    expect(listedProduct.purchase_url).toBe(store);
    expect(
      (await adminJson("product:update", "--id", String(product.id), "--purchase-url", "none")).purchase_url,
    ).toBeNull();
  });

  it("sets and removes a device limit and manual steps, and lists and frees a device's seats", async () => {
    const product = await createProduct(testDb.db);
    const updated = await adminJson(
      "product:update",
      "--id",
      String(product.id),
      "--device-limit",
      "2",
      "--manual-steps",
      '["Download","Open it"]',
    );
    expect(updated).toMatchObject({ id: product.id, device_limit: 2, manual_steps: ["Download", "Open it"] });
    expect(
      (await adminJson("product:update", "--id", String(product.id), "--device-limit", "none")).device_limit,
    ).toBeNull();
    await expectFailure(
      ["product:update", "--id", String(product.id), "--manual-steps", "Download"],
      /JSON array of strings/,
    );
    await expectFailure(
      ["product:update", "--id", String(product.id), "--manual-steps", "[1]"],
      /JSON array of strings/,
    );
    await expectFailure(["product:update", "--id", String(product.id)], /at least one of/);
    await expectFailure(["product:update", "--id", "2000000000", "--device-limit", "1"], /Product not found/);
    await expectFailure(["product:update", "--id", String(product.id), "--device-limit", "0"], /at least 1/);

    const email = uniqueEmail("devices");
    const account = await createAccount(testDb.db, { email });
    await testDb.db.insert(schema.entitlements).values({ accountId: account.id, productId: product.id });
    const { key } = await createKey(testDb.db, account.id, { kind: "device" });
    const caller = await callerFor(testDb.db, key);
    await caller.license.check({ product_id: product.id, device_id: "DESK-1", device_name: "Desk" });
    const listed = await adminJson("device:list", "--email", email);
    expect(listed.devices).toEqual([
      expect.objectContaining({
        device_id: "DESK-1",
        name: "Desk",
        products: [expect.objectContaining({ product_id: product.id, product_name: product.name })],
      }),
    ]);
    const text = await admin("device:list", "--email", email);
    expect(text.stdout).toContain("DESK-1");

    const deviceId = String(listed.devices[0].id);
    // The operator names the account: another account's device is not found, and keeps its seat.
    const other = uniqueEmail("other");
    await createAccount(testDb.db, { email: other });
    await expectFailure(["device:deactivate", "--email", other, "--id", deviceId], /Device not found/);
    const seats = () => testDb.db.$count(schema.deviceActivations, eq(schema.deviceActivations.productId, product.id));
    expect(await seats()).toBe(1);
    await expectFailure(["device:deactivate", "--id", deviceId], /--email/);

    const freed = await adminJson("device:deactivate", "--email", email, "--id", deviceId);
    expect(freed).toMatchObject({ device_id: "DESK-1", released_product_ids: [product.id] });
    expect(await seats()).toBe(0);
    await expectFailure(["device:deactivate", "--email", email, "--id", "2000000000"], /Device not found/);
  });
});
