import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { schema } from "@shelf/db";
import type { ReleaseChannel } from "@shelf/db/enums";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createAccountWithKey, createProduct, grantEntitlement, TEST_BASE_URL } from "../../testing";
import { withApiSuite } from "../../testing/suite";
import { yankRelease } from "./admin-service";
import { publishRelease, putContentAsset } from "./publish";

const suite = withApiSuite({ ownDelivery: true });
const { testDb, request } = suite;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function publish(
  productId: number,
  version: string,
  options: { channel?: ReleaseChannel; bytes?: Buffer; releasedAt?: Date } = {},
) {
  const bytes = options.bytes ?? randomBytes(1000 + Math.floor(Math.random() * 1000));
  const release = await publishRelease(
    testDb.db,
    suite.delivery,
    { productId, version, channel: options.channel, filename: `app-${version}.zip` },
    Readable.from([bytes]),
  );
  if (options.releasedAt) {
    await testDb.db
      .update(schema.releases)
      .set({ releasedAt: options.releasedAt })
      .where(eq(schema.releases.id, release.id));
  }
  return { ...release, bytes };
}

/** A buyer's key and a product with one release per channel, published a day apart. */
async function productOnEveryChannel(entitlement: { updatesSupportedUntil?: Date } = {}) {
  const { account, key } = await createAccountWithKey(testDb.db);
  const product = await createProduct(testDb.db);
  await grantEntitlement(testDb.db, account.id, product.id, entitlement);
  const day = 86_400_000;
  const base = Date.parse("2026-06-01T00:00:00Z");
  const releases = {
    stable: await publish(product.id, "1.0.0", { releasedAt: new Date(base) }),
    beta: await publish(product.id, "1.1.0-beta.1", { channel: "beta", releasedAt: new Date(base + day) }),
    alpha: await publish(product.id, "1.2.0-alpha.1", { channel: "alpha", releasedAt: new Date(base + 2 * day) }),
    dev: await publish(product.id, "1.3.0-dev.1", { channel: "dev", releasedAt: new Date(base + 3 * day) }),
  };
  return { account, key, product, releases };
}

/** Follows a plan's signed link through the same edge: the bytes it leads to. */
async function download(url: string, headers: Record<string, string> = {}) {
  const { pathname } = new URL(url);
  return request(pathname, { headers });
}

describe("install plans", () => {
  it("offers the newest release each channel sees, with a signed link to exactly the published bytes", async () => {
    const { key, product, releases } = await productOnEveryChannel();
    const expected: Record<ReleaseChannel, keyof typeof releases> = {
      stable: "stable",
      beta: "beta",
      alpha: "alpha",
      dev: "dev",
    };
    for (const [channel, release] of Object.entries(expected)) {
      const query = channel === "stable" ? "" : `?channel=${channel}`;
      const response = await request(`/api/products/${product.id}/install${query}`, { key });
      expect(response.status, channel).toBe(200);
      const plan = response.body.data;
      const published = releases[release];
      expect(plan).toMatchObject({
        product_id: product.id,
        kind: "app",
        name: product.name,
        version: published.version,
        channel: published.channel,
        filename: `app-${published.version}.zip`,
        sha256: sha256(published.bytes),
        size: published.bytes.length,
        format: "manual",
        slug: null,
      });
      const expires = Date.parse(plan.download_expires_at) - Date.now();
      expect(expires).toBeGreaterThan(500_000);
      expect(expires).toBeLessThanOrEqual(600_000);
      expect(plan.download_url).not.toContain(key);
      const file = await fetchBytes(plan.download_url);
      expect(file.status).toBe(200);
      expect(sha256(file.bytes)).toBe(plan.sha256);
      expect(file.headers.get("content-disposition")).toContain(plan.filename);
    }
  });

  it("answers 404 install_not_available without a release, and 422 for an unknown channel", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    const none = await request(`/api/products/${product.id}/install`, { key });
    expect(none.status).toBe(404);
    expect(none.body.error).toBe("install_not_available");
    await publish(product.id, "2.0.0-beta.1", { channel: "beta" });
    expect((await request(`/api/products/${product.id}/install`, { key })).body.error).toBe("install_not_available");
    const unknown = await request(`/api/products/${product.id}/install?channel=nightly`, { key });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.channel).toBeDefined();
  });

  it("never offers a yanked release", async () => {
    const { key, product, releases } = await productOnEveryChannel();
    await yankRelease(testDb.db, releases.dev.id);
    const plan = (await request(`/api/products/${product.id}/install?channel=dev`, { key })).body.data;
    expect(plan.version).toBe(releases.alpha.version);
  });
});

describe("the update window", () => {
  it("cuts bundles and update downloads off after it, while install plans keep the last version it covered", async () => {
    const { key, product, releases } = await productOnEveryChannel({
      updatesSupportedUntil: new Date("2026-06-01T12:00:00Z"),
    });
    const bundle = await request(`/api/products/${product.id}/bundle?channel=beta`, { key });
    expect(bundle.status).toBe(403);
    expect(bundle.body.error).toBe("version_update_window_expired");
    const update = (await request(`/api/products/${product.id}/updates?version=0.9.0&channel=beta`, { key })).body
      .update;
    expect(update).toMatchObject({
      current_version: releases.beta.version,
      update_available: true,
      download_allowed: false,
      artifact_sha256: sha256(releases.beta.bytes),
      artifact_size: releases.beta.bytes.length,
    });
    const plan = (await request(`/api/products/${product.id}/install?channel=dev`, { key })).body.data;
    expect(plan.version).toBe(releases.stable.version);
    const stable = await request(`/api/products/${product.id}/bundle`, { key });
    expect(stable.status).toBe(200);
  });

  it("lets a buyer within it download the newest release as a stream with its validators", async () => {
    const { key, product, releases } = await productOnEveryChannel();
    const update = (await request(`/api/products/${product.id}/updates?version=1.0.0&channel=alpha`, { key })).body
      .update;
    expect(update).toMatchObject({
      download_allowed: true,
      download_url: `http://shelf.test/api/products/${product.id}/bundle?channel=alpha`,
    });
    const response = await request(`/api/products/${product.id}/bundle?channel=alpha`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toBe(`"${sha256(releases.alpha.bytes)}"`);
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    // The contract's type for the bundle, whatever the file; its name keeps the extension.
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="[^"]+\.zip"/);
    expect(response.headers.get("content-length")).toBe(String(releases.alpha.bytes.length));
    const ranged = await request(`/api/products/${product.id}/bundle?channel=alpha`, {
      key,
      headers: { range: "bytes=10-19", "if-range": `"${sha256(releases.alpha.bytes)}"` },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe(`bytes 10-19/${releases.alpha.bytes.length}`);
    const stale = await request(`/api/products/${product.id}/bundle?channel=alpha`, {
      key,
      headers: { range: "bytes=10-19", "if-range": '"not-the-current-etag"' },
    });
    expect(stale.status).toBe(200);
  });
});

describe("signed download links", () => {
  it("refuse a tampered token, a renamed file, a forged signature and an expired link with 403 JSON", async () => {
    const { key, product } = await productOnEveryChannel();
    const plan = (await request(`/api/products/${product.id}/install`, { key })).body.data;
    const url = new URL(plan.download_url);
    const [, , , , token, filename] = url.pathname.split("/") as string[];
    const [payload, signature] = (token as string).split(".") as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString());
    const otherPayload = Buffer.from(JSON.stringify({ ...decoded, s: decoded.s + 1 })).toString("base64url");
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === "A" ? "B" : "A"}${signature.at(-1)}`;
    const cases = {
      payload: `/distribution/v1/files/${otherPayload}.${signature}/${filename}`,
      signature: `/distribution/v1/files/${payload}.${flipped}/${filename}`,
      filename: `/distribution/v1/files/${token}/other.zip`,
      unsigned: `/distribution/v1/files/${payload}/${filename}`,
      garbage: `/distribution/v1/files/x.y.z/${filename}`,
    };
    for (const [name, path] of Object.entries(cases)) {
      const response = await request(path);
      expect(response.status, name).toBe(403);
      expect(response.body, name).toEqual({ message: expect.any(String), error: "download_link_invalid" });
    }
    const expiredLink = await suite.delivery.links.link(
      { key: "artifacts/00/x", sha256: "a".repeat(64), size: 1, filename: "x.zip", contentType: "application/zip" },
      new Date(Date.now() - 601_000),
    );
    const expired = await request(new URL(expiredLink.url).pathname);
    expect(expired.status).toBe(403);
    expect(expired.body.error).toBe("download_link_expired");
    expect((await request(url.pathname)).status).toBe(200);
  });

  it("gives a browser that opens a refused link a page in its language that leads back to the product", async () => {
    const { key, product } = await productOnEveryChannel();
    const plan = (await request(`/api/products/${product.id}/install`, { key })).body.data;
    const [, , , , token, filename] = new URL(plan.download_url).pathname.split("/") as string[];
    const stale = await suite.delivery.links.link(
      { ...suite.delivery.links.verify(token as string, decodeURIComponent(filename as string)) },
      new Date(Date.now() - 601_000),
    );
    const navigate = { "sec-fetch-mode": "navigate", accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
    const english = await request(new URL(stale.url).pathname, { headers: navigate });
    expect(english.status).toBe(403);
    expect(english.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(english.text).toContain("<h1>This download link has expired</h1>");
    expect(english.text).toContain(`<a href="${TEST_BASE_URL}/account/products/${product.id}">Back to the product</a>`);
    const korean = await request(new URL(stale.url).pathname, {
      headers: { ...navigate, "accept-language": "ko-KR,ko;q=0.9" },
    });
    expect(korean.text).toContain("<h1>다운로드 링크가 만료되었습니다</h1>");
    expect(korean.text).toContain("제품으로 돌아가기");
    // A forged link names no product it can be trusted about: the way back is the library.
    const altered = await request(`/distribution/v1/files/x.y.z/${filename}`, { headers: navigate });
    expect(altered.status).toBe(403);
    expect(altered.text).toContain("<h1>This download link does not work</h1>");
    expect(altered.text).toContain(`<a href="${TEST_BASE_URL}/account">Back to your library</a>`);
    // Clients of the API (no navigation) keep the contract's JSON.
    const client = await request(new URL(stale.url).pathname, { headers: { accept: "text/html" } });
    expect(client.body).toEqual({ message: expect.any(String), error: "download_link_expired" });
  });

  it("answers single, suffix, open-ended and multiple ranges, and 416 outside the file", async () => {
    const bytes = randomBytes(10_000);
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    await publish(product.id, "3.0.0", { bytes });
    const plan = (await request(`/api/products/${product.id}/install`, { key })).body.data;
    const get = (range: string) => download(plan.download_url, { range });
    const single = await get("bytes=100-199");
    expect(single.status).toBe(206);
    expect(single.bytes).toEqual(bytes.subarray(100, 200));
    expect((await get("bytes=-500")).headers.get("content-range")).toBe("bytes 9500-9999/10000");
    expect((await get("bytes=9000-")).headers.get("content-range")).toBe("bytes 9000-9999/10000");
    const multiple = await get("bytes=0-9,5000-5009");
    expect(multiple.status).toBe(206);
    expect(multiple.headers.get("content-type")).toMatch(/^multipart\/byteranges; boundary=/);
    const outside = await get("bytes=20000-");
    expect(outside.status).toBe(416);
    expect(outside.headers.get("content-range")).toBe("bytes */10000");
  });
});

describe("content assets", () => {
  it("lists the stored assets and serves each by its path, slashes and all", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    const script = Buffer.from("#!/bin/sh\necho installed\n");
    await putContentAsset(testDb.db, suite.delivery.store, { productId: product.id, path: "install/mac os/setup.sh" }, [
      script,
    ]);
    await putContentAsset(testDb.db, suite.delivery.store, { productId: product.id, path: "README.md" }, [
      Buffer.from("# Read me"),
    ]);
    const list = await request(`/api/products/${product.id}/content-assets`, { key });
    expect(list.status).toBe(200);
    expect(list.body.assets.map((asset: { path: string }) => asset.path)).toEqual([
      "README.md",
      "install/mac os/setup.sh",
    ]);
    expect(list.body.assets[1]).toMatchObject({
      size: script.length,
      sha256: sha256(script),
      content_type: "application/x-sh",
      download_url: `http://shelf.test/api/products/${product.id}/content-assets/install/mac%20os/setup.sh`,
    });
    const file = await request(`/api/products/${product.id}/content-assets/install/mac%20os/setup.sh`, { key });
    expect(file.status).toBe(200);
    expect(file.text).toBe(script.toString());
    expect(file.headers.get("etag")).toBe(`"${sha256(script)}"`);
  });

  it("replaces an asset in place and removes the old file from the store", async () => {
    const product = await createProduct(testDb.db);
    const first = await putContentAsset(testDb.db, suite.delivery.store, { productId: product.id, path: "a.txt" }, [
      Buffer.from("one"),
    ]);
    const before = await storedObjects();
    const second = await putContentAsset(testDb.db, suite.delivery.store, { productId: product.id, path: "a.txt" }, [
      Buffer.from("two"),
    ]);
    expect(second).toMatchObject({ id: first.id, replaced: true, sha256: sha256(Buffer.from("two")) });
    expect(await storedObjects()).toHaveLength(before.length);
  });

  it("refuses traversal, absolute paths, backslashes and NUL with 404 or 422, and never serves another file", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    await putContentAsset(testDb.db, suite.delivery.store, { productId: product.id, path: "docs/a.txt" }, [
      Buffer.from("a"),
    ]);
    const attempts = [
      "docs/../docs/a.txt",
      "../../../../etc/passwd",
      "docs/%2e%2e/docs/a.txt",
      "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "docs%2f..%2f..%2fsigning-keys.json",
      "docs/./a.txt",
      "/etc/passwd",
      "%2Fetc%2Fpasswd",
      "docs%5Ca.txt",
      "docs/a.txt%00.png",
      "docs//a.txt",
      "%252e%252e/docs/a.txt",
    ];
    for (const attempt of attempts) {
      const response = await request(`/api/products/${product.id}/content-assets/${attempt}`, {
        key,
        rawTarget: true,
      });
      expect([400, 404, 422], attempt).toContain(response.status);
      expect(response.headers.get("content-type"), attempt).toContain("application/json");
    }
    expect((await request(`/api/products/${product.id}/content-assets/docs/a.txt`, { key })).status).toBe(200);
  });
});

describe("publishing", () => {
  it("publishes a version once per product, also when two publishes race, leaving one release and one file", async () => {
    const product = await createProduct(testDb.db);
    const before = await storedObjects();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => publish(product.id, "4.0.0", { bytes: randomBytes(50_000) })),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results.filter((result) => result.status === "rejected")) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({ code: "conflict" });
    }
    const rows = await testDb.db.select().from(schema.releases).where(eq(schema.releases.productId, product.id));
    expect(rows).toHaveLength(1);
    expect((await storedObjects()).length - before.length).toBe(1);
    await expect(publish(product.id, "4.0.0", { channel: "beta" })).rejects.toMatchObject({ code: "conflict" });
  });

  it("leaves no release and no stored file when the upload fails midway, and refuses invalid versions", async () => {
    const product = await createProduct(testDb.db);
    const before = await storedObjects();
    async function* failing() {
      yield randomBytes(100_000);
      throw new Error("connection lost");
    }
    await expect(
      publishRelease(
        testDb.db,
        suite.delivery,
        { productId: product.id, version: "1.0.0", filename: "a.zip" },
        failing(),
      ),
    ).rejects.toThrow("connection lost");
    for (const version of ["1.0", "v1.0.0", "1.0.0.0", "latest", ""]) {
      await expect(
        publishRelease(testDb.db, suite.delivery, { productId: product.id, version, filename: "a.zip" }, [
          Buffer.from("x"),
        ]),
        version,
      ).rejects.toMatchObject({ errors: { version: expect.any(Array) } });
    }
    expect(await testDb.db.$count(schema.releases, eq(schema.releases.productId, product.id))).toBe(0);
    expect(await storedObjects()).toEqual(before);
  });

  it("signs each artifact with Ed25519 under the active key", async () => {
    const product = await createProduct(testDb.db);
    const release = await publish(product.id, "5.0.0");
    expect(release.signing_kid).toBe(suite.delivery.keyring.active("sparkle").kid);
    const { verify } = await import("node:crypto");
    expect(
      verify(
        null,
        release.bytes,
        suite.delivery.keyring.active("sparkle").publicKey,
        Buffer.from(release.signature, "base64"),
      ),
    ).toBe(true);
    expect(Buffer.from(release.signature, "base64")).toHaveLength(64);
  });
});

/** Every object and partial upload in the test store's folder. */
async function storedObjects(): Promise<string[]> {
  const entries = await fs.readdir(path.join(suite.delivery.dir, "artifacts"), { recursive: true });
  return entries.filter((entry) => entry.endsWith(".part") || /[0-9a-f-]{36}$/.test(entry)).sort();
}

async function fetchBytes(url: string) {
  const { pathname } = new URL(url);
  const response = await request(pathname);
  return { status: response.status, headers: response.headers, bytes: response.bytes };
}
