import { type Jwks, recordSecret, verifyCanonicalSignature, verifyCompactJws } from "@shelf/api/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { jsonApi } from "./json-api";
import { operatedSuite } from "./operated-suite";

/**
 * What the licensing issue calls done, as an operator and a device would do it against the production server: the
 * operator CLI sets up a product limited to one device; a device key activates, checks its license and verifies the
 * certificate offline with the published JWKS, hits the device limit with a useful 409 from a second machine, uploads
 * usage twice without duplicates, releases its device and logs out. A key rotation on the running server keeps old
 * certificates verifiable.
 */

const suite = operatedSuite("shelf-licensing-e2e-");
let productId: number;
let laptopKey: string;
let desktopKey: string;

const { admin } = suite;

const api = jsonApi(() => suite.server.url);

beforeAll(async () => {
  await admin("account:create", "--email", "grace@example.test", "--name", "Grace");
  productId = (await admin("product:create", "--name", "Seat Saver", "--price-cents", "2900", "--device-limit", "1"))
    .id;
  await admin("product:update", "--id", String(productId), "--manual-steps", '["Download","Open","Sign in"]');
  await admin("entitlement:grant", "--email", "grace@example.test", "--product", String(productId));
  await admin("policy:set", "--min-client-version", "1.2.0", "--ttl-days", "10", "--recheck-hours", "6");
  // Two machines signed in with device keys (the six device abilities).
  laptopKey = (await admin("key:create", "--email", "grace@example.test", "--device", "--name", "laptop")).key;
  desktopKey = (await admin("key:create", "--email", "grace@example.test", "--device", "--name", "desktop")).key;
  await suite.start();
}, 240_000);

describe("a device's license, from activation to logout, on the production server", () => {
  it("activates, verifies offline, meets the limit, uploads usage twice, releases its seat and logs out", async () => {
    const jwks = async (): Promise<Jwks> => (await api("/.well-known/jwks.json", null)).body;

    // Activation: a key of the laptop's own for the product.
    const activated = await api("/api/device/bulk-activate", laptopKey, { method: "POST", body: {} });
    expect(activated.status).toBe(200);
    expect(activated.body.keys).toHaveLength(1);
    const productKey = activated.body.keys[0].key as string;
    recordSecret(productKey);
    expect(activated.body.keys[0]).toMatchObject({ product_id: productId, product_name: "Seat Saver" });

    // The license check seats the laptop and signs a certificate the app verifies offline.
    const checked = await api("/api/license/check", productKey, {
      method: "POST",
      body: { product_id: productId, device_id: "LAPTOP-7F3A", device_name: "Grace's laptop", app_version: "1.2.0" },
    });
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ licensed: true, code: "valid", device_limit: 1, devices_used: 1 });
    const published = await jwks();
    const certificate = await verifyCompactJws(checked.body.certificate, published);
    expect(certificate?.claims).toMatchObject({ product_id: productId, device_id: "LAPTOP-7F3A" });
    const ttl = (certificate?.claims.exp as number) - (certificate?.claims.iat as number);
    expect(ttl).toBeGreaterThan(10 * 86_400 - 5);
    expect(ttl).toBeLessThanOrEqual(10 * 86_400);

    // The client policy it caches is signed too, with what the operator set.
    const policy = await api("/api/client-config", productKey);
    expect(policy.body).toMatchObject({ min_client_version: "1.2.0", policy: { ttl_days: 10, recheck_hours: 6 } });
    expect(await verifyCanonicalSignature(policy.body, published)).toBe(true);
    expect((await api("/api/client-config", null)).status).toBe(401);

    // The desktop meets the limit: a 409 that says which device holds the seat and where to manage it.
    const refused = await api("/api/license/check", desktopKey, {
      method: "POST",
      body: { product_id: productId, device_id: "DESKTOP-11C2", device_name: "Studio" },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: "device_limit_reached",
      device_limit: 1,
      manage_url: `${suite.server.url.replace("127.0.0.1", "localhost")}/account/devices?product=${productId}`,
      devices: [{ device_id: "LAPTOP-7F3A", name: "Grace's laptop", last_seen_at: expect.any(String) }],
    });
    expect(refused.body.message).toMatch(/1 of 1 devices/);

    // Usage, uploaded twice (a retry): the same rows, the figures of the last upload.
    const days = [0, 1, 2].map((back) => ({
      product_id: productId,
      usage_date: new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10),
      launches: 4 + back,
      commands: { export: back },
    }));
    for (let upload = 0; upload < 2; upload++) {
      const usage = await api("/api/device/usage", productKey, { method: "POST", body: { consent: true, days } });
      expect(usage.status).toBe(200);
      expect(usage.body).toEqual({ consent: true, stored: 3 });
    }
    const [usageRows] = await suite.testDb.sql<{ rows: number; launches: number }[]>`
      select count(*)::int as rows, sum(launches)::int as launches from device_usage where product_id = ${productId}`;
    expect(usageRows).toEqual({ rows: 3, launches: 15 });

    // The laptop gives up its seat: the product key is revoked, and the desktop gets in.
    const released = await api(`/api/products/${productId}/license/device/revoke`, productKey, { method: "POST" });
    expect(released.status).toBe(200);
    expect(released.body.released).toEqual([expect.objectContaining({ device_id: "LAPTOP-7F3A" })]);
    expect((await api("/api/client-config", productKey)).status).toBe(401);
    const desktop = await api("/api/license/check", desktopKey, {
      method: "POST",
      body: { product_id: productId, device_id: "DESKTOP-11C2" },
    });
    expect(desktop.status).toBe(200);

    // The command-line client logs out: 204, and its key is dead from the next request on.
    const logout = await api("/api/cli/device/logout", laptopKey, { method: "POST" });
    expect(logout.status).toBe(204);
    const after = await api("/api/device/entitlements", laptopKey);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("invalid_api_key");
  });

  it("rotates the certificate key on the running server: new certificates name the new key, old ones still verify", async () => {
    const before = await api("/api/license/check", desktopKey, {
      method: "POST",
      body: { product_id: productId, device_id: "DESKTOP-11C2" },
    });
    const rotation = await admin("signing:rotate");
    let after = before;
    for (let attempt = 0; attempt < 40; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await api("/api/license/check", desktopKey, {
        method: "POST",
        body: { product_id: productId, device_id: "DESKTOP-11C2" },
      });
      if (JSON.parse(Buffer.from(after.body.certificate.split(".")[0], "base64url").toString()).kid === rotation.kid) {
        break;
      }
    }
    const published: Jwks = (await api("/.well-known/jwks.json", null)).body;
    expect(published.keys.map((key) => key.kid)).toEqual(expect.arrayContaining([rotation.kid, rotation.previous.kid]));
    expect((await verifyCompactJws(after.body.certificate, published))?.header.kid).toBe(rotation.kid);
    expect((await verifyCompactJws(before.body.certificate, published))?.header.kid).toBe(rotation.previous.kid);
  });
});
