import { schema } from "@shelf/db";
import { createTestDatabase } from "@shelf/db/testing";
import { and, eq, sql } from "drizzle-orm";
import { createLocalJWKSet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { revokeDevice, setPolicy } from "../../client-policy";
import {
  createAccountWithKey,
  createApiClient,
  createKey,
  createProduct,
  createRelease,
  grantEntitlement,
  type Jwks,
  verifyCompactJws,
} from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { updateProduct } from "../products/admin-service";
import { LicenseCheckData, ProductLicenseData } from "./schemas";

const suite = withApiSuite({ ownDelivery: true });
const { testDb, request } = suite;

const DAY_MS = 86_400_000;
const deviceAbilities = ["products.read", "device.entitlements", "device.install", "device.usage"] as const;

/** A buyer with a device key, and a product they hold. */
async function buyer(productValues: Parameters<typeof createProduct>[1] = {}, entitlement = {}) {
  const { account, key } = await createAccountWithKey(testDb.db, { abilities: [...deviceAbilities] });
  const product = await createProduct(testDb.db, productValues);
  await grantEntitlement(testDb.db, account.id, product.id, entitlement);
  return { account, key, product };
}

const check = (key: string, body: Record<string, unknown>) =>
  request("/api/license/check", { method: "POST", key, body });

async function publishedJwks(): Promise<Jwks> {
  const response = await request("/.well-known/jwks.json");
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("public, max-age=300");
  return response.body;
}

async function seats(accountId: number, productId: number) {
  return testDb.db.$count(
    schema.deviceActivations,
    and(eq(schema.deviceActivations.accountId, accountId), eq(schema.deviceActivations.productId, productId)),
  );
}

describe("POST /api/license/check", () => {
  it("licenses a buyer, seats the device, and signs a certificate any client verifies offline with the JWKS", async () => {
    const { account, key, product } = await buyer(
      { deviceLimit: 2 },
      { updatesSupportedUntil: new Date("2027-06-01T00:00:00Z") },
    );
    const before = Date.now();
    const response = await check(key, {
      product_id: product.id,
      device_id: "MAC-0001",
      device_name: "Ada's MacBook",
      app_version: "1.2.0",
    });
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(contractMismatch(LicenseCheckData, response.text)).toBeNull();
    const body = response.body;
    expect(body).toMatchObject({
      product_id: product.id,
      licensed: true,
      code: "valid",
      access_source: "purchase",
      access_expires_at: null,
      updates_supported_until: "2027-06-01T00:00:00.000Z",
      update_window_open: true,
      device_limit: 2,
      devices_used: 1,
      product_name: product.name,
      device: { device_id: "MAC-0001", name: "Ada's MacBook" },
    });
    expect(body.device.activated_at).not.toBeNull();
    expect(Date.parse(body.recheck_after) - Date.parse(body.checked_at)).toBe(24 * 3_600_000);

    const verified = await verifyCompactJws(body.certificate, await publishedJwks());
    expect(verified).not.toBeNull();
    expect(verified?.header).toMatchObject({
      alg: "EdDSA",
      typ: "license+jwt",
      kid: suite.delivery.keyring.active("jws").kid,
    });
    const claims = verified?.claims as Record<string, unknown>;
    expect(claims).toMatchObject({
      iss: "http://shelf.test",
      sub: `account:${account.id}`,
      aud: `product:${product.id}`,
      account_id: account.id,
      product_id: product.id,
      device_id: "MAC-0001",
      access_source: "purchase",
      access_expires_at: null,
      updates_supported_until: "2027-06-01T00:00:00.000Z",
    });
    expect(typeof claims.jti).toBe("string");
    // Trusted offline for the policy's 14 days.
    expect((claims.exp as number) * 1000).toBe(Date.parse(body.certificate_expires_at));
    // Signed during the request: 14 days from a moment between sending it and reading the answer (the database's
    // clock and this process's agree to a second).
    expect((claims.exp as number) * 1000).toBeGreaterThanOrEqual(before + 14 * DAY_MS - 1000);
    expect((claims.exp as number) * 1000).toBeLessThanOrEqual(after + 14 * DAY_MS + 1000);

    // Any change to the claims, the header or the signature, and it no longer verifies.
    const [header, payload, signature] = body.certificate.split(".");
    const forged = Buffer.from(
      JSON.stringify({ ...claims, device_id: "SOMEONE-ELSE", exp: (claims.exp as number) + 365 * 86_400 }),
    ).toString("base64url");
    const jwks = await publishedJwks();
    expect(await verifyCompactJws(`${header}.${forged}.${signature}`, jwks)).toBeNull();
    const flipped = Buffer.from(signature, "base64url");
    flipped[10] = (flipped[10] as number) ^ 1;
    expect(await verifyCompactJws(`${header}.${payload}.${flipped.toString("base64url")}`, jwks)).toBeNull();
    expect(await verifyCompactJws(body.certificate, { keys: [] })).toBeNull();

    // What README tells client authors to do, with a JOSE library: it verifies, and names the claims it checked.
    const jose = await jwtVerify(body.certificate, createLocalJWKSet(jwks), {
      typ: "license+jwt",
      issuer: "http://shelf.test",
      audience: `product:${product.id}`,
    });
    expect(jose.payload.device_id).toBe("MAC-0001");
    await expect(
      jwtVerify(body.certificate, createLocalJWKSet(jwks), { typ: "license+jwt", audience: "product:0" }),
    ).rejects.toThrow();

    expect(await seats(account.id, product.id)).toBe(1);
  });

  it("says why it is not licensed, with a stable code, no certificate and no seat", async () => {
    const { account, key } = await createAccountWithKey(testDb.db, { abilities: [...deviceAbilities] });
    const notBought = await createProduct(testDb.db);
    const expired = await createProduct(testDb.db);
    const refunded = await createProduct(testDb.db);
    const limited = await createProduct(testDb.db, { deviceLimit: 3 });
    const windowed = await createProduct(testDb.db);
    const cutOff = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, expired.id, { accessExpiresAt: new Date(Date.now() - DAY_MS) });
    await grantEntitlement(testDb.db, account.id, refunded.id, { revokedAt: new Date() });
    await grantEntitlement(testDb.db, account.id, limited.id);
    await grantEntitlement(testDb.db, account.id, windowed.id, {
      updatesSupportedUntil: new Date("2026-03-01T00:00:00Z"),
    });
    await grantEntitlement(testDb.db, account.id, cutOff.id);
    await createRelease(testDb.db, windowed.id, { version: "1.0.0", releasedAt: new Date("2026-01-01T00:00:00Z") });
    await createRelease(testDb.db, windowed.id, { version: "2.0.0", releasedAt: new Date("2026-04-01T00:00:00Z") });
    await revokeDevice(testDb.db, cutOff.id, "STOLEN-1");

    const cases: [Record<string, unknown>, string][] = [
      [{ product_id: notBought.id, device_id: "D1" }, "not_entitled"],
      [{ product_id: expired.id, device_id: "D1" }, "access_expired"],
      [{ product_id: refunded.id, device_id: "D1" }, "entitlement_revoked"],
      [{ product_id: limited.id }, "device_id_required"],
      [{ product_id: windowed.id, device_id: "D1", app_version: "2.0.0" }, "version_outside_update_window"],
      [{ product_id: cutOff.id, device_id: "STOLEN-1" }, "device_revoked"],
    ];
    for (const [body, code] of cases) {
      const response = await check(key, body);
      expect(response.status, code).toBe(200);
      expect(contractMismatch(LicenseCheckData, response.text)).toBeNull();
      expect(response.body, code).toMatchObject({ licensed: false, code, certificate: null, device: null });
      expect(response.body.message).toMatch(/\w/);
    }
    // The version released inside the window is licensed; so is the window product without a version.
    for (const app_version of ["1.0.0", "v1.0.0", undefined]) {
      const response = await check(key, { product_id: windowed.id, device_id: "D1", app_version });
      expect(response.body.code, String(app_version)).toBe("valid");
      expect(response.body.update_window_open).toBe(false);
    }
    const counted = await testDb.db.$count(
      schema.deviceActivations,
      eq(schema.deviceActivations.accountId, account.id),
    );
    expect(counted).toBe(1);
    // Without a device id, a product without a limit is licensed, with a certificate that names no device.
    const unbound = await check(key, { product_id: cutOff.id });
    expect(unbound.body).toMatchObject({ licensed: true, device: null, devices_used: 0 });
    expect(
      JSON.parse(Buffer.from(unbound.body.certificate.split(".")[1], "base64url").toString()).device_id,
    ).toBeNull();
  });

  it("finds an app by its bundle id, and refuses ids that disagree or name nothing", async () => {
    const bundleId = `com.example.app-${Date.now()}`;
    const delivery = {
      schema_version: 1,
      strategy: "macos-app",
      payload: { bundle_id: bundleId },
      targets: ["macos"],
      dependencies: [],
      launch: { kind: "open-app" },
      requires_confirmation: false,
      compatibility: true,
    } as never;
    const { key, product } = await buyer({ delivery });
    const byBundle = await check(key, { bundle_id: bundleId, device_id: "B1" });
    expect(byBundle.status).toBe(200);
    expect(byBundle.body).toMatchObject({ product_id: product.id, bundle_id: bundleId, licensed: true });
    expect((await check(key, { product_id: product.id, bundle_id: bundleId })).status).toBe(200);

    const disagree = await check(key, { product_id: product.id, bundle_id: "com.example.other" });
    expect(disagree.status).toBe(422);
    expect(disagree.body.errors.bundle_id).toBeDefined();
    const unknown = await check(key, { bundle_id: "com.example.nothing" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("not_found");
    const neither = await check(key, { device_id: "B1" });
    expect(neither.status).toBe(422);
    expect(neither.body.errors.product_id).toEqual(["product_id or bundle_id is required"]);
    const hidden = await createProduct(testDb.db, { published: false });
    expect((await check(key, { product_id: hidden.id })).status).toBe(404);
  });

  it("keeps the device limit under 20 parallel first checks from distinct devices: exactly the limit get in", async () => {
    const limit = 3;
    const { account, key, product } = await buyer({ deviceLimit: limit });
    // Every new seat takes 30 ms to write (a trigger of this test's database), so that the checks overlap for sure:
    // without the seat lock, each would count the seats before any other had committed, and all would get in.
    await testDb.db.execute(sql`create function slow_seat() returns trigger language plpgsql as
      $$ begin perform pg_sleep(0.03); return new; end $$`);
    await testDb.db.execute(
      sql`create trigger slow_seat before insert on device_activations for each row execute function slow_seat()`,
    );
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        check(key, { product_id: product.id, device_id: `PAR-${index}`, device_name: `Device ${index}` }),
      ),
    ).finally(async () => {
      await testDb.db.execute(sql`drop trigger slow_seat on device_activations`);
      await testDb.db.execute(sql`drop function slow_seat`);
    });
    const admitted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 409);
    expect(admitted).toHaveLength(limit);
    expect(refused).toHaveLength(20 - limit);
    expect(await seats(account.id, product.id)).toBe(limit);
    const seated = new Set(admitted.map((response) => response.body.device.device_id));
    for (const response of refused) {
      expect(response.body).toMatchObject({
        message: expect.stringContaining(`${limit} of ${limit} devices`),
        error: "device_limit_reached",
        device_limit: limit,
        manage_url: `http://shelf.test/account/devices?product=${product.id}`,
      });
      expect(response.body.devices).toHaveLength(limit);
      for (const device of response.body.devices) {
        expect(seated.has(device.device_id)).toBe(true);
        expect(device).toEqual({
          id: expect.any(Number),
          device_id: expect.stringMatching(/^PAR-/),
          name: expect.stringMatching(/^Device /),
          activated_at: expect.any(String),
          last_seen_at: expect.any(String),
        });
      }
    }
    // A refused device wrote nothing: no device row, no seat.
    const refusedIds = refused.map((response) => response.text).length;
    expect(refusedIds).toBe(17);
    const devices = await testDb.db.$count(schema.devices, eq(schema.devices.accountId, account.id));
    expect(devices).toBe(limit);
  });

  it("lets a seated device in always, even once the limit is lowered below the seats taken; one device, one seat", async () => {
    const { account, key, product } = await buyer({ deviceLimit: 2 });
    const same = await Promise.all(
      Array.from({ length: 8 }, () => check(key, { product_id: product.id, device_id: "SAME" })),
    );
    expect(same.map((response) => response.status)).toEqual(Array(8).fill(200));
    expect(await seats(account.id, product.id)).toBe(1);
    expect((await check(key, { product_id: product.id, device_id: "SECOND" })).status).toBe(200);
    await updateProduct(testDb.db, { id: product.id, deviceLimit: 1 });
    for (const device of ["SAME", "SECOND"]) {
      const response = await check(key, { product_id: product.id, device_id: device });
      expect(response.status, device).toBe(200);
      expect(response.body.devices_used).toBe(2);
    }
    const third = await check(key, { product_id: product.id, device_id: "THIRD" });
    expect(third.status).toBe(409);
    expect(third.body.devices.map((device: { device_id: string }) => device.device_id).sort()).toEqual([
      "SAME",
      "SECOND",
    ]);
  });

  it("never trusts a certificate longer than access lasts, and follows the policy's offline time", async () => {
    const accessEnds = new Date(Date.now() + 3 * DAY_MS + 1234);
    const { key, product } = await buyer({}, { accessExpiresAt: accessEnds });
    const short = await check(key, { product_id: product.id, device_id: "T1" });
    expect(Date.parse(short.body.certificate_expires_at)).toBe(Math.floor(accessEnds.getTime() / 1000) * 1000);

    const policyDb = await createTestDatabase();
    try {
      await setPolicy(policyDb.db, { ttlDays: 2, recheckHours: 6 });
      const policyRequest = createApiClient(policyDb.db, { delivery: suite.delivery });
      const { account, key: otherKey } = await createAccountWithKey(policyDb.db, { abilities: [...deviceAbilities] });
      const other = await createProduct(policyDb.db);
      await grantEntitlement(policyDb.db, account.id, other.id);
      const response = await policyRequest("/api/license/check", {
        method: "POST",
        key: otherKey,
        body: { product_id: other.id, device_id: "T2" },
      });
      const { checked_at, recheck_after, certificate_expires_at } = response.body;
      expect(Date.parse(recheck_after) - Date.parse(checked_at)).toBe(6 * 3_600_000);
      expect(Date.parse(certificate_expires_at) - Date.parse(checked_at)).toBeGreaterThan(2 * DAY_MS - 2000);
      expect(Date.parse(certificate_expires_at) - Date.parse(checked_at)).toBeLessThanOrEqual(2 * DAY_MS);
    } finally {
      await policyDb.drop();
    }
  });

  it("takes each limit of contract section 8 at its boundary: the maximum in, one more a 422", async () => {
    const { key, product } = await buyer();
    const at = (field: string, length: number) => ({ product_id: product.id, [field]: "x".repeat(length) });
    for (const [field, max] of [
      ["device_id", 255],
      ["app_version", 100],
    ] as const) {
      expect((await check(key, at(field, max))).status, `${field} ${max}`).toBe(200);
      const over = await check(key, at(field, max + 1));
      expect(over.status, `${field} ${max + 1}`).toBe(422);
      expect(over.body.errors[field]).toBeDefined();
    }
    const longBundle = await check(key, { bundle_id: "b".repeat(255) });
    expect(longBundle.status).toBe(404);
    const overBundle = await check(key, { bundle_id: "b".repeat(256) });
    expect(overBundle.status).toBe(422);
    expect(overBundle.body.errors.bundle_id).toBeDefined();
    for (const body of [
      { product_id: 0 },
      { product_id: -1 },
      { product_id: "1" },
      { product_id: product.id, device_id: "" },
      { product_id: product.id, device_id: " padded" },
      { product_id: product.id, device_id: "tab\there" },
      { product_id: product.id, app_version: 12 },
    ]) {
      expect((await check(key, body)).status, JSON.stringify(body)).toBe(422);
    }
  });

  it("lets a product key check only its own product", async () => {
    const { account, product } = await buyer();
    const other = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, other.id);
    const scoped = await createKey(testDb.db, account.id, { productId: product.id, abilities: [...deviceAbilities] });
    expect((await check(scoped.key, { product_id: product.id, device_id: "S1" })).status).toBe(200);
    const elsewhere = await check(scoped.key, { product_id: other.id, device_id: "S1" });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error).toBe("product_api_key_scope_required");
  });
});

describe("the product license and releasing a device", () => {
  it("lists the seats, and a product key releases the seats it checked and is revoked at once", async () => {
    const { account, key, product } = await buyer({ deviceLimit: 2 });
    const productKey = await createKey(testDb.db, account.id, {
      productId: product.id,
      kind: "device",
      abilities: [...deviceAbilities],
    });
    expect(
      (await check(productKey.key, { product_id: product.id, device_id: "LAPTOP", app_version: "1.0.0" })).status,
    ).toBe(200);
    expect((await check(key, { product_id: product.id, device_id: "DESKTOP" })).status).toBe(200);

    const license = await request(`/api/products/${product.id}/license`, { key });
    expect(license.status).toBe(200);
    expect(contractMismatch(ProductLicenseData, license.text)).toBeNull();
    expect(license.body.license).toMatchObject({ licensed: true, code: "valid", device_limit: 2, devices_used: 2 });
    expect(
      license.body.license.activations.map((seat: { device: { device_id: string } }) => seat.device.device_id).sort(),
    ).toEqual(["DESKTOP", "LAPTOP"]);
    const laptop = license.body.license.activations.find(
      (seat: { device: { device_id: string } }) => seat.device.device_id === "LAPTOP",
    );
    expect(laptop.app_version).toBe("1.0.0");

    const account_wide = await request(`/api/products/${product.id}/license/device/revoke`, { method: "POST", key });
    expect(account_wide.status).toBe(403);
    expect(account_wide.body.error).toBe("product_api_key_scope_required");

    const released = await request(`/api/products/${product.id}/license/device/revoke`, {
      method: "POST",
      key: productKey.key,
    });
    expect(released.status).toBe(200);
    expect(released.body.released.map((device: { device_id: string }) => device.device_id)).toEqual(["LAPTOP"]);
    expect(released.body.key).toEqual({
      id: productKey.record.id,
      prefix: productKey.record.prefix,
      revoked_at: expect.any(String),
    });
    expect(await seats(account.id, product.id)).toBe(1);
    const after = await check(productKey.key, { product_id: product.id, device_id: "LAPTOP" });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("invalid_api_key");
    // The freed seat is there for another device.
    expect((await check(key, { product_id: product.id, device_id: "NEW" })).status).toBe(200);
  });

  it("operator revocation frees the seat, answers device_revoked, and a restore lets it back in", async () => {
    const { account, key, product } = await buyer({ deviceLimit: 1 });
    expect((await check(key, { product_id: product.id, device_id: "ROGUE" })).status).toBe(200);
    const revoked = await revokeDevice(testDb.db, product.id, "ROGUE");
    expect(revoked.seats_released).toBe(1);
    expect(await seats(account.id, product.id)).toBe(0);
    const refused = (await check(key, { product_id: product.id, device_id: "ROGUE" })).body;
    expect(refused).toMatchObject({
      code: "device_revoked",
      message: "This device was cut off from the product by the seller.",
    });
    expect((await check(key, { product_id: product.id, device_id: "HONEST" })).status).toBe(200);
    const { restoreDevice } = await import("../../client-policy");
    await restoreDevice(testDb.db, product.id, "ROGUE");
    // The seat went to another device meanwhile: back, but over the limit.
    expect((await check(key, { product_id: product.id, device_id: "ROGUE" })).status).toBe(409);
  });

  it("shows only the account's own seats: another buyer's devices of the product are in neither the 409 nor the license", async () => {
    const { account, key, product } = await buyer({ deviceLimit: 1 });
    const { account: neighbour, key: neighbourKey } = await createAccountWithKey(testDb.db, {
      abilities: [...deviceAbilities],
    });
    await grantEntitlement(testDb.db, neighbour.id, product.id);
    expect((await check(neighbourKey, { product_id: product.id, device_id: "NEIGHBOUR" })).status).toBe(200);
    expect((await check(key, { product_id: product.id, device_id: "MINE" })).status).toBe(200);

    const refused = await check(key, { product_id: product.id, device_id: "ANOTHER" });
    expect(refused.status).toBe(409);
    expect(refused.body.devices.map((device: { device_id: string }) => device.device_id)).toEqual(["MINE"]);
    const license = await request(`/api/products/${product.id}/license`, { key });
    expect(license.body.license.devices_used).toBe(1);
    expect(
      license.body.license.activations.map((seat: { device: { device_id: string } }) => seat.device.device_id),
    ).toEqual(["MINE"]);
    expect(await seats(account.id, product.id)).toBe(1);
  });

  it("writes a seated device's check at most once a minute, so a client checking in a loop stays cheap", async () => {
    const { account, key, product } = await buyer();
    await check(key, { product_id: product.id, device_id: "LOOP" });
    const stamp = async () => {
      const [row] = await testDb.db.execute(sql`select xmin::text as version from device_activations
        where account_id = ${account.id} and product_id = ${product.id}`);
      return (row as { version: string }).version;
    };
    const first = await stamp();
    for (let index = 0; index < 5; index++) await check(key, { product_id: product.id, device_id: "LOOP" });
    expect(await stamp()).toBe(first);
    // A new app version is recorded at once.
    await check(key, { product_id: product.id, device_id: "LOOP", app_version: "2.0.0" });
    expect(await stamp()).not.toBe(first);
  });
});
