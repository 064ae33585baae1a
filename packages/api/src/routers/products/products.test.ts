import { schema } from "@shelf/db";
import { describe, expect, it } from "vitest";
import {
  createAccountWithKey,
  createCategory,
  createKey,
  createProduct,
  createRelease,
  createTag,
  grantEntitlement,
} from "../../testing";
import { withApiSuite } from "../../testing/suite";
import { ProductApiData, ProductDetailApiData, ProductReleaseData, ProductUpdateApiData } from "./schemas";

const { testDb, request } = withApiSuite();

const sha = "b".repeat(64);

describe("GET /api/products", () => {
  it("lists published products and the unpublished ones the account holds, with taxonomy and entitled flags", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const parent = await createCategory(db, { name: "Tools" });
    const child = await createCategory(db, { name: "Editors", parentId: parent.id });
    const tag = await createTag(db, { name: "ai", type: "topic" });
    const owned = await createProduct(db, { name: "Owned Hidden", published: false, primaryCategoryId: child.id });
    await createProduct(db, { name: "Someone's Hidden", published: false });
    const open = await createProduct(db, { name: "Open App", primaryCategoryId: parent.id });
    await db.insert(schema.productCategories).values([
      { productId: open.id, categoryId: parent.id, position: 0 },
      { productId: open.id, categoryId: child.id, position: 1 },
    ]);
    await db.insert(schema.productTags).values({ productId: open.id, tagId: tag.id });
    await grantEntitlement(db, account.id, owned.id);

    const response = await request(`/api/products?q=${encodeURIComponent("hidden")}`, { key });
    expect(response.status).toBe(200);
    const names = response.body.products.map((product: { name: string }) => product.name);
    expect(names).toContain("Owned Hidden");
    expect(names).not.toContain("Someone's Hidden");

    const byCategory = await request(`/api/products?category_id=${child.id}`, { key });
    const openData = byCategory.body.products.find((product: { id: number }) => product.id === open.id);
    expect(ProductApiData.strict().parse(openData)).toBeTruthy();
    expect(openData).toMatchObject({
      entitled: false,
      active: true,
      primary_category: { id: parent.id, parent_id: null, name: "Tools", active: true, visibility: "public" },
      categories: [{ id: parent.id }, { id: child.id, parent_id: parent.id }],
      tags: [{ id: tag.id, name: "ai", type: "topic", active: true }],
    });
    expect(byCategory.body.products.find((product: { id: number }) => product.id === owned.id)).toMatchObject({
      entitled: true,
      active: false,
    });

    const byTag = await request(`/api/products?tag_id=${tag.id}`, { key });
    expect(byTag.body.products.map((product: { id: number }) => product.id)).toEqual([open.id]);
  });

  it("filters by platform, searches safely and sorts", async () => {
    const { db } = testDb;
    const { key } = await createAccountWithKey(db);
    const marker = `zz${Date.now()}`;
    const cheap = await createProduct(db, { name: `${marker} cheap`, unitPriceCents: 100, platforms: ["linux"] });
    const dear = await createProduct(db, {
      name: `${marker} dear`,
      unitPriceCents: 900,
      platforms: ["macos", "linux"],
    });
    const mac = await request(`/api/products?q=${marker}&platform=macos`, { key });
    expect(mac.body.products.map((product: { id: number }) => product.id)).toEqual([dear.id]);
    const sorted = await request(`/api/products?q=${marker}&sort=-price`, { key });
    expect(sorted.body.products.map((product: { id: number }) => product.id)).toEqual([dear.id, cheap.id]);
    const wildcard = await request(`/api/products?q=${encodeURIComponent("%_")}`, { key });
    expect(wildcard.status).toBe(200);
    expect(wildcard.body.products).toEqual([]);
  });

  it("rejects bad filters with 422 and field errors", async () => {
    const { db } = testDb;
    const { key } = await createAccountWithKey(db);
    for (const query of [
      "category_id=abc",
      "category_id=",
      "tag_id=-1",
      "tag_id=1.5",
      "sort=sideways",
      "category_id=99999999999",
    ]) {
      const response = await request(`/api/products?${query}`, { key });
      expect(response.status, query).toBe(422);
      expect(response.body.message).toEqual(expect.any(String));
      const field = query.split("=")[0] as string;
      expect(response.body.errors[field], query).toEqual([expect.any(String)]);
    }
  });
});

describe("GET /api/products/{product}", () => {
  it("shows a published product to anyone with a key and hides an unpublished one from accounts without access", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const other = await createAccountWithKey(db);
    const hidden = await createProduct(db, { published: false, contentLocale: "ko" });
    await grantEntitlement(db, account.id, hidden.id);
    const owner = await request(`/api/products/${hidden.id}`, { key });
    expect(owner.status).toBe(200);
    expect(owner.body.product).toMatchObject({ id: hidden.id, entitled: true, active: false, content_locale: "ko" });
    expect(owner.headers.get("content-language")).toBe("ko");
    const stranger = await request(`/api/products/${hidden.id}`, { key: other.key });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ message: "Product not found.", error: "not_found" });
    expect((await request("/api/products/2147483000", { key })).status).toBe(404);
    expect((await request("/api/products/abc", { key })).status).toBe(422);
  });
});

describe("GET /api/products/{product}/detail", () => {
  it("needs an entitlement and returns the full detail", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const product = await createProduct(db, {
      detailHtml: "<p>Hi</p>",
      runtime: "node",
      platforms: ["macos"],
      delivery: {
        schema_version: 1,
        strategy: "binary",
        payload: { binary_path: "bin/tool", executable_name: "tool" } as never,
        targets: ["codex"],
        dependencies: [],
        launch: { kind: "none" },
        requires_confirmation: true,
        compatibility: true,
      },
    });
    const denied = await request(`/api/products/${product.id}/detail`, { key });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("product_entitlement_required");
    await grantEntitlement(db, account.id, product.id);
    const response = await request(`/api/products/${product.id}/detail`, { key });
    expect(response.status).toBe(200);
    expect(ProductDetailApiData.strict().parse(response.body)).toBeTruthy();
    expect(response.body.delivery.payload).toMatchObject({
      binary_path: "bin/tool",
      executable_name: "tool",
      app_path: null,
    });
    expect(response.body).toMatchObject({
      detail_html: "<p>Hi</p>",
      runtime: "node",
      gallery: [],
      videos: [],
      manual: null,
    });
  });
});

describe("entitlement rules", () => {
  it("does not count revoked or expired entitlements, and prefers the one that lasts longest", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const product = await createProduct(db);
    await grantEntitlement(db, account.id, product.id, { revokedAt: new Date() });
    await grantEntitlement(db, account.id, product.id, { accessExpiresAt: new Date(Date.now() - 1000) });
    const denied = await request(`/api/products/${product.id}/detail`, { key });
    expect(denied.body.error).toBe("product_entitlement_required");
    await createRelease(db, product.id, {
      version: "2.0.0",
      artifactSha256: sha,
      artifactSize: 1,
      releasedAt: new Date("2026-06-01T00:00:00Z"),
    });
    await grantEntitlement(db, account.id, product.id, { updatesSupportedUntil: new Date("2026-01-01T00:00:00Z") });
    await grantEntitlement(db, account.id, product.id, {
      accessExpiresAt: new Date(Date.now() + 86_400_000),
      updatesSupportedUntil: new Date("2027-01-01T00:00:00Z"),
    });
    // The entitlement without an access expiry wins, and its update window has ended before 2.0.0.
    const update = await request(`/api/products/${product.id}/updates?version=1.0.0`, { key });
    expect(update.status).toBe(200);
    expect(update.body.update.download_allowed).toBe(false);
  });
});

describe("GET /api/products/{product}/releases", () => {
  it("lists every channel's releases, newest first, to any valid key", async () => {
    const { db } = testDb;
    const account = await createAccountWithKey(db);
    const bare = await createKey(db, account.account.id, { abilities: ["orders.read"] });
    const product = await createProduct(db);
    await createRelease(db, product.id, {
      version: "1.0.0",
      releasedAt: new Date("2026-01-01T00:00:00Z"),
      notesEn: "First",
    });
    await createRelease(db, product.id, {
      version: "1.1.0-beta",
      channel: "beta",
      releasedAt: new Date("2026-02-01T00:00:00Z"),
    });
    const response = await request(`/api/products/${product.id}/releases`, { key: bare.key });
    expect(response.status).toBe(200);
    expect(response.body.releases.map((release: { version: string }) => release.version)).toEqual([
      "1.1.0-beta",
      "1.0.0",
    ]);
    for (const release of response.body.releases) expect(ProductReleaseData.strict().parse(release)).toBeTruthy();
    expect(response.body.releases[1]).toMatchObject({ notes_en: "First", released_at: "2026-01-01T00:00:00.000Z" });
  });
});

describe("GET /api/products/{product}/updates", () => {
  it("compares the client version with the newest stable release by semver", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const product = await createProduct(db);
    await grantEntitlement(db, account.id, product.id);
    await createRelease(db, product.id, { version: "1.9.0", releasedAt: new Date("2026-01-01T00:00:00Z") });
    await createRelease(db, product.id, {
      version: "1.10.0",
      releasedAt: new Date("2026-02-01T00:00:00Z"),
      notes: "Faster",
      artifactSha256: sha,
      artifactSize: 42,
      sourceRef: "v1.10.0",
    });
    await createRelease(db, product.id, {
      version: "2.0.0",
      channel: "beta",
      releasedAt: new Date("2026-03-01T00:00:00Z"),
    });

    const older = await request(`/api/products/${product.id}/updates?version=1.9.5`, { key });
    expect(older.status).toBe(200);
    expect(ProductUpdateApiData.strict().parse(older.body.update)).toBeTruthy();
    expect(older.body.update).toEqual({
      product_id: product.id,
      current_version: "1.10.0",
      released_at: "2026-02-01T00:00:00.000Z",
      changelog: "Faster",
      source_ref: "v1.10.0",
      artifact_sha256: sha,
      artifact_size: 42,
      update_available: true,
      download_allowed: true,
      download_url: `http://shelf.test/api/products/${product.id}/bundle`,
    });
    const same = await request(`/api/products/${product.id}/updates?version=1.10.0`, { key });
    expect(same.body.update.update_available).toBe(false);
    const newer = await request(`/api/products/${product.id}/updates?version=v2.0`, { key });
    expect(newer.body.update.update_available).toBe(false);
    const bad = await request(`/api/products/${product.id}/updates?version=latest`, { key });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.version).toHaveLength(1);
  });

  it("refuses downloads of releases past the buyer's update window", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const product = await createProduct(db);
    await grantEntitlement(db, account.id, product.id, { updatesSupportedUntil: new Date("2026-01-15T00:00:00Z") });
    await createRelease(db, product.id, {
      version: "2.0.0",
      artifactSha256: sha,
      artifactSize: 1,
      releasedAt: new Date("2026-02-01T00:00:00Z"),
    });
    const response = await request(`/api/products/${product.id}/updates?version=1.0.0`, { key });
    expect(response.body.update).toMatchObject({ update_available: true, download_allowed: false });
  });

  it("answers a product without releases", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const product = await createProduct(db);
    await grantEntitlement(db, account.id, product.id);
    const response = await request(`/api/products/${product.id}/updates?version=1.0.0`, { key });
    expect(response.body.update).toMatchObject({
      current_version: "1.0.0",
      released_at: null,
      update_available: false,
      download_allowed: false,
    });
  });
});

describe("GET /api/product-content.css", () => {
  it("serves text/css with the styles of the products the key can see", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const visible = await createProduct(db, { contentCss: ".visible-product { color: red; }" });
    const hidden = await createProduct(db, { published: false, contentCss: ".hidden-product { color: blue; }" });
    const scopedTo = await createProduct(db, { published: false, contentCss: ".scoped-product { color: green; }" });
    await grantEntitlement(db, account.id, scopedTo.id);
    const response = await request("/api/product-content.css", { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(response.text).toContain(".visible-product");
    expect(response.text).toContain(".scoped-product");
    expect(response.text).not.toContain(".hidden-product");
    expect(hidden.id).toBeGreaterThan(visible.id);
    const scoped = await createKey(db, account.id, { productId: scopedTo.id });
    const scopedCss = await request("/api/product-content.css", { key: scoped.key });
    expect(scopedCss.text).toContain(".scoped-product");
    expect(scopedCss.text).not.toContain(".visible-product");
    const noKey = await request("/api/product-content.css");
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("content-type")).toContain("application/json");
  });
});
