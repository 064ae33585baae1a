import path from "node:path";
import { rotateSigningKey } from "@shelf/server/signing/keyring";
import { describe, expect, it } from "vitest";
import { restoreDevice, revokeDevice, setPolicy } from "../../client-policy";
import {
  createAccountWithKey,
  createApiClient,
  createKey,
  createProduct,
  grantEntitlement,
  type Jwks,
  verifyCanonicalSignature,
  verifyCompactJws,
} from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { createTestDelivery } from "../../testing/delivery";
import { withApiSuite } from "../../testing/suite";
import { ClientConfigData } from "./schemas";

const suite = withApiSuite({ ownDelivery: true });
const { testDb, request } = suite;

const jwks = async (): Promise<Jwks> => (await request("/.well-known/jwks.json")).body;

describe("GET /api/client-config", () => {
  it("answers the policy signed over its canonical form, verified with the published JWKS; any change breaks it", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const response = await request("/api/client-config", { key });
    expect(response.status).toBe(200);
    expect(contractMismatch(ClientConfigData, response.text)).toBeNull();
    // Signed anew for each request: never stored, and no validator that could never match again.
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("etag")).toBeNull();
    const policy = response.body;
    expect(policy).toMatchObject({
      min_client_version: "0.0.0",
      revoked: [],
      policy: { ttl_days: 14, recheck_hours: 24 },
      kid: suite.delivery.keyring.active("jws").kid,
    });
    expect(Date.now() - Date.parse(policy.signed_at)).toBeLessThan(60_000);
    const keys = await jwks();
    expect(await verifyCanonicalSignature(policy, keys)).toBe(true);
    // Field order is not part of what is signed; content is.
    const reordered = Object.fromEntries(Object.entries(policy).reverse());
    expect(await verifyCanonicalSignature(reordered, keys)).toBe(true);
    for (const tampered of [
      { ...policy, min_client_version: "0.0.1" },
      { ...policy, policy: { ...policy.policy, ttl_days: 365 } },
      { ...policy, revoked: [{ product_id: 1, device_id: "x" }] },
      { ...policy, signed_at: new Date(Date.now() + 86_400_000).toISOString() },
      { ...policy, version: policy.version + 1 },
      { ...policy, extra: true },
    ]) {
      expect(await verifyCanonicalSignature(tampered, keys)).toBe(false);
    }
    expect((await request("/api/client-config")).status).toBe(401);
  });

  it("grows its version with every change and lists only this account's revoked devices, in the key's scope", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    const other = await createProduct(testDb.db);
    for (const id of [product.id, other.id]) await grantEntitlement(testDb.db, account.id, id);
    await request("/api/license/check", { method: "POST", key, body: { product_id: product.id, device_id: "MINE" } });
    await request("/api/license/check", { method: "POST", key, body: { product_id: other.id, device_id: "MINE" } });
    const start = (await request("/api/client-config", { key })).body.version;

    const set = await setPolicy(testDb.db, { minClientVersion: "v2.1.0", recheckHours: 12, ttlDays: 7 });
    expect(set).toMatchObject({ min_client_version: "2.1.0", version: start + 1 });
    await revokeDevice(testDb.db, product.id, "MINE");
    await revokeDevice(testDb.db, other.id, "MINE");
    await revokeDevice(testDb.db, product.id, "NOT-IN-THIS-ACCOUNT");
    const policy = (await request("/api/client-config", { key })).body;
    expect(policy).toMatchObject({
      min_client_version: "2.1.0",
      policy: { ttl_days: 7, recheck_hours: 12 },
      version: start + 4,
      revoked: [
        { product_id: Math.min(product.id, other.id), device_id: "MINE" },
        { product_id: Math.max(product.id, other.id), device_id: "MINE" },
      ],
    });
    expect(await verifyCanonicalSignature(policy, await jwks())).toBe(true);
    const scoped = await createKey(testDb.db, account.id, { productId: product.id });
    expect((await request("/api/client-config", { key: scoped.key })).body.revoked).toEqual([
      { product_id: product.id, device_id: "MINE" },
    ]);
    await restoreDevice(testDb.db, product.id, "MINE");
    expect((await request("/api/client-config", { key: scoped.key })).body).toMatchObject({
      revoked: [],
      version: start + 5,
    });
    // Revoking twice changes nothing more.
    const again = await revokeDevice(testDb.db, other.id, "MINE");
    expect(again.seats_released).toBe(0);
    await expect(setPolicy(testDb.db, {})).rejects.toThrow();
    await expect(setPolicy(testDb.db, { minClientVersion: "latest" })).rejects.toThrow();
    await expect(setPolicy(testDb.db, { ttlDays: 366 })).rejects.toThrow();
  });
});

describe("GET /.well-known/jwks.json and key rotation", () => {
  it("keeps certificates and policies signed before a rotation verifiable, and signs with the new key after it", async () => {
    const rotating = await createTestDelivery();
    const rotatingRequest = createApiClient(testDb.db, { delivery: rotating });
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    const license = () =>
      rotatingRequest("/api/license/check", { method: "POST", key, body: { product_id: product.id, device_id: "R" } });
    const oldCertificate = (await license()).body.certificate;
    const oldPolicy = (await rotatingRequest("/api/client-config", { key })).body;
    const oldKid = rotating.keyring.active("jws").kid;

    const rotation = await rotateSigningKey(
      { kind: "file", path: path.join(rotating.dir, "signing-keys.json") },
      "jws",
    );
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const keys: Jwks = (await rotatingRequest("/.well-known/jwks.json")).body;
    expect(keys.keys.map((jwk) => jwk.kid).sort()).toEqual([oldKid, rotation.kid].sort());
    for (const jwk of keys.keys) expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });

    expect(await verifyCompactJws(oldCertificate, keys)).not.toBeNull();
    expect(await verifyCanonicalSignature(oldPolicy, keys)).toBe(true);
    const newCertificate = (await license()).body.certificate;
    const verified = await verifyCompactJws(newCertificate, keys);
    expect(verified?.header.kid).toBe(rotation.kid);
    const newPolicy = (await rotatingRequest("/api/client-config", { key })).body;
    expect(newPolicy.kid).toBe(rotation.kid);
    expect(await verifyCanonicalSignature(newPolicy, keys)).toBe(true);
    // Sparkle keeps the key apps pin.
    expect(rotating.keyring.active("sparkle").kid).toBe(oldKid);
  });
});
