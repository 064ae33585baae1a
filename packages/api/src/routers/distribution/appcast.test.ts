import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { createDb, schema } from "@shelf/db";
import { createDatabaseHealth } from "@shelf/db/server";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { rawPublicKey } from "@shelf/server/signing/keyring";
import { opensslVerifies } from "@shelf/server/testing/openssl";
import type { Element } from "@xmldom/xmldom";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../../account-api";
import type { Delivery } from "../../delivery";
import {
  createAccountWithKey,
  createApiClient,
  createKey,
  createProduct,
  grantEntitlement,
  TEST_BASE_URL,
  testAccountServices,
  testLog,
} from "../../testing";
import {
  parseAppcast,
  SPARKLE_NAMESPACE_URI,
  sparkleElements,
  sparkleText,
  splitSignedFeed,
  XML_NAMESPACE_URI,
} from "../../testing/appcast";
import { startDbProxy } from "../../testing/db-proxy";
import { createTestDelivery } from "../../testing/delivery";
import { yankRelease } from "../products/admin-service";
import { type PublishReleaseInput, publishRelease } from "../products/publish";

let testDb: TestDatabase;
let delivery: Delivery;
let request: ReturnType<typeof createApiClient>;
let publicKey: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  delivery = await createTestDelivery();
  request = createApiClient(testDb.db, { delivery });
  publicKey = rawPublicKey(delivery.keyring.active("sparkle").publicKey).toString("base64");
});
afterAll(() => testDb.drop());

async function publish(productId: number, input: Omit<PublishReleaseInput, "productId" | "filename">) {
  const bytes = randomBytes(2000);
  const release = await publishRelease(
    testDb.db,
    delivery,
    { productId, filename: `app-${input.version}.zip`, ...input },
    Readable.from([bytes]),
  );
  return { ...release, bytes };
}

/** A product with a stable and a beta release, and a buyer's key. */
async function sparkleApp(values: Partial<typeof schema.products.$inferInsert> = {}) {
  const { account, key } = await createAccountWithKey(testDb.db);
  const product = await createProduct(testDb.db, { name: "Lumen & <Notes>", ...values });
  await grantEntitlement(testDb.db, account.id, product.id);
  const stable = await publish(product.id, {
    version: "2.4.1",
    build: "241",
    notesEn: "Fixes a crash.\n\nFaster <search> & more.",
    notesKo: "충돌을 고쳤습니다.",
    minOsVersion: "13.0",
    platform: "macos-arm64",
    critical: true,
  });
  const beta = await publish(product.id, { version: "2.5.0-beta.2", channel: "beta", notesEn: "Canvas view." });
  return { account, key, product, stable, beta };
}

const sparkle = sparkleElements;
const text = sparkleText;
const items = parseAppcast;

describe("the Sparkle appcast", () => {
  it("lists every release for a buyer, each field as Sparkle reads it, signatures verified by openssl", async () => {
    const { key, product, stable, beta } = await sparkleApp();
    const response = await request(`/distribution/v1/products/${product.id}/appcast.xml`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");

    const { document, signature, length } = splitSignedFeed(response.bytes);
    expect(length).toBe(document.length);
    expect(await opensslVerifies(publicKey, document, signature)).toBe(true);
    const tampered = Buffer.from(document);
    tampered[tampered.indexOf("2.4.1")] = "3".charCodeAt(0);
    expect(await opensslVerifies(publicKey, tampered, signature)).toBe(false);

    const list = items(response.text);
    expect(list).toHaveLength(2);
    const [first, second] = list as [Element, Element];
    // Newest first: the beta, tagged with its channel; the stable item carries no channel.
    expect(text(first, "shortVersionString")).toBe("2.5.0-beta.2");
    expect(text(first, "version")).toBe("2.5.0-beta.2");
    expect(text(first, "channel")).toBe("beta");
    expect(sparkle(second, "channel")).toHaveLength(0);
    expect(second.getElementsByTagName("title")[0]?.textContent).toBe("Version 2.4.1");
    expect(text(second, "version")).toBe("241");
    expect(text(second, "shortVersionString")).toBe("2.4.1");
    expect(text(second, "minimumSystemVersion")).toBe("13.0");
    expect(text(second, "hardwareRequirements")).toBe("arm64");
    expect(sparkle(second, "criticalUpdate")).toHaveLength(1);
    expect(sparkle(first, "criticalUpdate")).toHaveLength(0);
    const pubDate = second.getElementsByTagName("pubDate")[0]?.textContent as string;
    expect(pubDate).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
    expect(Date.parse(pubDate)).toBe(Math.floor(Date.parse(stable.released_at) / 1000) * 1000);

    const descriptions = Array.from(second.getElementsByTagName("description"));
    const byLanguage = Object.fromEntries(
      descriptions.map((element) => [element.getAttributeNS(XML_NAMESPACE_URI, "lang"), element.textContent]),
    );
    expect(byLanguage).toEqual({
      en: "<p>Fixes a crash.</p><p>Faster &lt;search&gt; &amp; more.</p>",
      ko: "<p>충돌을 고쳤습니다.</p>",
    });

    for (const [item, release] of [
      [first, beta],
      [second, stable],
    ] as const) {
      const enclosure = item.getElementsByTagName("enclosure")[0] as Element;
      expect(enclosure.getAttribute("url")).toBe(`${TEST_BASE_URL}/distribution/v1/releases/${release.id}/download`);
      expect(enclosure.getAttribute("length")).toBe(String(release.bytes.length));
      expect(enclosure.getAttribute("type")).toBe("application/zip");
      const edSignature = enclosure.getAttributeNS(SPARKLE_NAMESPACE_URI, "edSignature") as string;
      expect(Buffer.from(edSignature, "base64")).toHaveLength(64);
      expect(await opensslVerifies(publicKey, release.bytes, edSignature)).toBe(true);
    }
  });

  it("narrows to what a channel sees, gives every reader the combined feed, and hides yanked ones", async () => {
    const { key, product, stable, beta } = await sparkleApp();
    const versions = async (query: string, useKey: string | null) => {
      const response = await request(`/distribution/v1/products/${product.id}/appcast.xml${query}`, { key: useKey });
      expect(response.status, `${query} ${useKey ? "key" : "anonymous"}`).toBe(200);
      return items(response.text).map((item) => text(item, "shortVersionString"));
    };
    expect(await versions("?channel=stable", key)).toEqual(["2.4.1"]);
    expect(await versions("?channel=beta", key)).toEqual(["2.5.0-beta.2", "2.4.1"]);
    expect(await versions("?channel=dev", key)).toEqual(["2.5.0-beta.2", "2.4.1"]);
    // Without a key, the combined feed of all channels too: a Sparkle app chooses its channels by the tags.
    expect(await versions("", null)).toEqual(["2.5.0-beta.2", "2.4.1"]);
    const anonymous = items((await request(`/distribution/v1/products/${product.id}/appcast.xml`)).text);
    expect(anonymous.map((item) => text(item, "channel"))).toEqual(["beta", null]);
    expect(await versions("?channel=stable", null)).toEqual(["2.4.1"]);
    expect(await versions("?channel=beta", null)).toEqual(["2.5.0-beta.2", "2.4.1"]);
    const stranger = await createAccountWithKey(testDb.db);
    expect(await versions("", stranger.key)).toEqual(["2.5.0-beta.2", "2.4.1"]);
    // What a key still widens: downloads. The beta is the buyer's alone.
    const download = `/distribution/v1/releases/${beta.id}/download`;
    expect((await request(download)).body.error).toBe("missing_api_key");
    expect((await request(download, { key: stranger.key })).body.error).toBe("product_entitlement_required");
    expect((await request(download, { key })).status).toBe(302);

    await yankRelease(testDb.db, beta.id);
    expect(await versions("", key)).toEqual(["2.4.1"]);
    await yankRelease(testDb.db, stable.id);
    expect(items((await request(`/distribution/v1/products/${product.id}/appcast.xml`, { key })).text)).toEqual([]);
  });

  it("keeps unpublished products to their buyers, and refuses bad keys, keys without the ability and bad channels", async () => {
    const { account, key, product } = await sparkleApp({ published: false });
    const path = `/distribution/v1/products/${product.id}/appcast.xml`;
    expect((await request(path)).status).toBe(404);
    expect((await request(path, { key })).status).toBe(200);
    expect((await request(path, { key: "shelf_NotARealKeyAtAllNotARealKeyAtAll" })).body.error).toBe("invalid_api_key");
    const lacking = await createKey(testDb.db, account.id, { abilities: ["products.read"] });
    expect((await request(path, { key: lacking.key })).body.error).toBe("missing_api_key_ability");
    const other = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, other.id);
    const scoped = await createKey(testDb.db, account.id, { abilities: ["device.install"], productId: other.id });
    expect((await request(path, { key: scoped.key })).body.error).toBe("product_api_key_scope_required");
    expect((await request(`${path}?channel=nightly`, { key })).status).toBe(422);
  });

  it("revalidates with ETag and Last-Modified, and is cacheable by shared caches only without a key", async () => {
    const { key, product } = await sparkleApp();
    const path = `/distribution/v1/products/${product.id}/appcast.xml`;
    const first = await request(path);
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    expect(first.headers.get("vary")).toBe("Authorization");
    const etag = first.headers.get("etag") as string;
    const lastModified = first.headers.get("last-modified") as string;
    expect(etag).toMatch(/^W\/"/);
    expect(Date.parse(lastModified)).not.toBeNaN();
    const byTag = await request(path, { headers: { "if-none-match": etag } });
    expect(byTag.status).toBe(304);
    expect(byTag.text).toBe("");
    expect((await request(path, { headers: { "if-modified-since": lastModified } })).status).toBe(304);
    const older = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    expect((await request(path, { headers: { "if-modified-since": older } })).status).toBe(200);
    expect((await request(path, { key })).headers.get("cache-control")).toBe("private, no-cache");
  });

  it("dates each product's feed by its own releases, so a newer release is never answered 304", async () => {
    const older = await createProduct(testDb.db);
    const newer = await createProduct(testDb.db);
    const olderRelease = await publish(older.id, { version: "1.0.0" });
    const newerRelease = await publish(newer.id, { version: "1.0.0" });
    const releasedAt = async (id: number, at: string) =>
      testDb.db
        .update(schema.releases)
        .set({ releasedAt: new Date(at) })
        .where(eq(schema.releases.id, id));
    await releasedAt(olderRelease.id, "2026-07-01T00:00:00Z");
    await releasedAt(newerRelease.id, "2026-07-20T00:00:00Z");
    const feed = (product: { id: number }, headers: Record<string, string> = {}) =>
      request(`/distribution/v1/products/${product.id}/appcast.xml`, { headers });
    expect((await feed(older)).headers.get("last-modified")).toBe("Wed, 01 Jul 2026 00:00:00 GMT");
    expect((await feed(newer)).headers.get("last-modified")).toBe("Mon, 20 Jul 2026 00:00:00 GMT");
    const since = { "if-modified-since": "Wed, 15 Jul 2026 00:00:00 GMT" };
    expect((await feed(older, since)).status).toBe(304);
    expect((await feed(newer, since)).status).toBe(200);
  });

  it("stays well-formed whatever the notes hold", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    const hostile = "]]> <!-- --> <script>alert(1)</script> & \u0001\u001f\uFFFE \"quoted\" 'single'";
    await publish(product.id, { version: "1.0.0", notesEn: hostile });
    const response = await request(`/distribution/v1/products/${product.id}/appcast.xml`, { key });
    const [item] = items(response.text) as [Element];
    expect(item.getElementsByTagName("description")[0]?.textContent).toBe(
      "<p>]]&gt; &lt;!-- --&gt; &lt;script&gt;alert(1)&lt;/script&gt; &amp;  &quot;quoted&quot; 'single'</p>",
    );
  });
});

describe("release downloads", () => {
  const download = (releaseId: number, key: string | null = null) =>
    request(`/distribution/v1/releases/${releaseId}/download`, { key });

  it("redirects a buyer to a short-lived signed link that yields the release's bytes", async () => {
    const { key, stable } = await sparkleApp();
    const response = await download(stable.id, key);
    expect(response.status).toBe(302);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const location = response.headers.get("location") as string;
    expect(location).not.toContain(key);
    const file = await request(new URL(location).pathname);
    expect(file.status).toBe(200);
    expect(file.bytes).toEqual(stable.bytes);
  });

  it("serves a signed link while the database is down, which needs none", async () => {
    const { key, stable } = await sparkleApp();
    const location = (await download(stable.id, key)).headers.get("location") as string;
    const proxy = await startDbProxy(testDb.url);
    const pool = createDb(proxy.url, {
      max: 2,
      timeouts: { connectSeconds: 1, statementMs: 1000, idleInTransactionMs: 5000 },
    });
    const health = createDatabaseHealth(proxy.url, { probeTimeoutMs: 500, probeIntervalMs: 60_000 });
    const edge = createAccountApiEdge({
      ...(await testAccountServices()),
      db: pool.db,
      dbDeadlineMs: pool.deadlineMs,
      health,
      delivery,
      log: testLog.child({}, { level: "error" }),
      baseUrl: TEST_BASE_URL,
      rateLimiter: createRateLimiter({ points: 1000 }),
    });
    const viaOutage = createApiClient(testDb.db, { edge });
    try {
      await proxy.cut();
      // A request that needs the database finds it gone and marks it down.
      expect((await viaOutage(`/distribution/v1/releases/${stable.id}/download`, { key })).status).toBe(503);
      expect(health.up).toBe(false);
      const file = await viaOutage(new URL(location).pathname);
      expect(file.status).toBe(200);
      expect(file.bytes).toEqual(stable.bytes);
      const fastFail = await viaOutage(`/distribution/v1/releases/${stable.id}/download`, { key });
      expect(fastFail.status).toBe(503);
      expect(fastFail.body.error).toBe("service_unavailable");
    } finally {
      await health.close();
      await pool.close();
      await proxy.close();
    }
  });

  it("lets anyone download stable releases of free published products, and only those", async () => {
    const free = await sparkleApp({ unitPriceCents: 0 });
    expect((await download(free.stable.id)).status).toBe(302);
    const freeBeta = await download(free.beta.id);
    expect(freeBeta.status).toBe(401);
    expect(freeBeta.body.error).toBe("missing_api_key");
    const paid = await sparkleApp({ unitPriceCents: 1900 });
    expect((await download(paid.stable.id)).body.error).toBe("missing_api_key");
    const stranger = await createAccountWithKey(testDb.db);
    expect((await download(paid.stable.id, stranger.key)).body.error).toBe("product_entitlement_required");
  });

  it("refuses releases past the buyer's update window, yanked releases and missing ones", async () => {
    const { account, key, product, stable } = await sparkleApp();
    await testDb.db
      .update(schema.entitlements)
      .set({ updatesSupportedUntil: new Date(Date.parse(stable.released_at) - 1000) })
      .where(eq(schema.entitlements.accountId, account.id));
    expect((await download(stable.id, key)).body.error).toBe("version_update_window_expired");
    const older = await publish(product.id, { version: "1.0.0" });
    await testDb.db
      .update(schema.releases)
      .set({ releasedAt: new Date("2020-01-01T00:00:00Z") })
      .where(eq(schema.releases.id, older.id));
    expect((await download(older.id, key)).status).toBe(302);
    await yankRelease(testDb.db, older.id);
    expect((await download(older.id, key)).status).toBe(404);
    expect((await download(2_000_000_000, key)).status).toBe(404);
  });
});
