import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import type { Delivery } from "@shelf/api";
import { LibraryApiData } from "@shelf/api/routers/library/schemas";
import { callerFor, createProduct, recordSecret, signedInCaller } from "@shelf/api/testing";
import { contractMismatch } from "@shelf/api/testing/contract";
import { createTestDelivery } from "@shelf/api/testing/delivery";
import { schema } from "@shelf/db";
import { useTestDatabase } from "@shelf/db/testing";
import { and, desc, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_EMAIL, DEMO_KEY_NAME, demoProducts } from "./catalog";
import { countDemoRows, seedDemo } from "./seed";

const testDb = useTestDatabase();
let files: Delivery;

beforeAll(async () => {
  files = await createTestDelivery();
});

const counts = () => countDemoRows(testDb.db);
const SECRET = "a".repeat(64);

describe("seedDemo", () => {
  it("keeps one demo key per secret: every seed returns the same working key, another secret replaces it", async () => {
    const { db } = testDb;
    const first = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    const again = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    expect(again.key).toBe(first.key);
    expect(first.key).toMatch(/^shelf_[1-9A-HJ-NP-Za-km-z]{32}$/);
    recordSecret(first.key);
    expect((await (await callerFor(db, first.key)).library.get({})).value().items.length).toBeGreaterThan(3);
    const other = await seedDemo(db, { brand: "shelf", secret: "b".repeat(64), files });
    recordSecret(other.key);
    expect(other.key).not.toBe(first.key);
    await expect((await callerFor(db, first.key)).library.get({})).rejects.toThrow();
    await seedDemo(db, { brand: "shelf", secret: SECRET, files });
  });

  it("creates nothing twice when seeders run at the same time, and keeps the demo key slots free", async () => {
    const { db } = testDb;
    const [first, second] = await Promise.all([
      seedDemo(db, { brand: "shelf", secret: SECRET, files }),
      seedDemo(db, { brand: "shelf", secret: SECRET, files }),
    ]);
    expect(second.accountId).toBe(first.accountId);
    expect(second.productIds).toEqual(first.productIds);
    const afterConcurrent = await counts();

    let latest = second;
    for (let run = 0; run < 4; run++) latest = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    expect(await counts()).toEqual(afterConcurrent);
    // Re-runs look rows up instead of upserting, so they draw no identity values: ids stay dense.
    expect((await createProduct(db)).id).toBe(Math.max(...latest.productIds) + 1);

    const live = await db
      .select({ prefix: schema.apiKeys.prefix })
      .from(schema.apiKeys)
      .where(
        and(
          eq(schema.apiKeys.accountId, latest.accountId),
          eq(schema.apiKeys.name, DEMO_KEY_NAME),
          isNull(schema.apiKeys.revokedAt),
        ),
      );
    expect(live).toEqual([{ prefix: latest.prefix }]);
  });

  it("gives the demo account billing to look at: orders, invoices enough for two pages, a subscription, a card", async () => {
    const { db } = testDb;
    const { key } = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    const caller = await callerFor(db, key);
    const { orders } = await caller.orders.list({});
    // Every product bought has its order (the purchase it holds is that order's), and the subscription its own.
    const bought = demoProducts.filter((product) => product.entitlement?.grantType === "purchase");
    expect(orders.map((order) => order.items[0]?.product_name).sort()).toEqual(
      [...bought.map((product) => product.name), "Release Notes Writer"].sort(),
    );
    for (const order of orders) {
      expect(order.items[0]?.entitlements.length, order.number).toBe(1);
    }
    // Bought over the months before, newest first; the newest still open to withdrawal, as a recent purchase is.
    const paid = await db
      .select({ number: schema.orders.number, paidAt: schema.orders.paidAt })
      .from(schema.orders)
      .innerJoin(schema.accounts, eq(schema.accounts.id, schema.orders.accountId))
      .where(eq(schema.accounts.email, DEMO_EMAIL))
      .orderBy(desc(schema.orders.id));
    const months = new Set(paid.map((row) => (row.paidAt as Date).toISOString().slice(0, 7)));
    expect(months.size).toBeGreaterThanOrEqual(5);
    const dates = paid.map((row) => (row.paidAt as Date).getTime());
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    for (const row of paid) expect(row.number.slice(3, 7)).toBe(String(row.paidAt?.getUTCFullYear()));
    // The newest is the subscription's (made last), then the purchase of three days ago.
    expect(orders[0]?.items[0]?.product_name).toBe("Release Notes Writer");
    expect(orders[1]?.can_withdraw).toBe(true);
    expect(orders.filter((order) => order.can_withdraw).length).toBeLessThan(orders.length);
    const invoices = await caller.orders.invoices({ limit: 5 });
    expect(invoices.invoices).toHaveLength(5);
    expect(invoices.next_cursor).not.toBeNull();
    const { subscriptions } = await caller.subscriptions.list({});
    expect(subscriptions.filter((subscription) => !subscription.is_pass)).toEqual([
      expect.objectContaining({ action: "cancel", payment_method_last4: "4242" }),
    ]);
    expect((await caller.orders.paymentMethods({})).payment_methods).toEqual([
      expect.objectContaining({ brand: "visa", last4: "4242", is_default: true }),
    ]);
  });

  it("gives every product a recipe-consistent, contract-valid shape in the library", async () => {
    const { db } = testDb;
    const { key, productIds } = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    expect(productIds).toHaveLength(demoProducts.length);
    const caller = await callerFor(db, key);
    const library = await caller.library.get({});
    expect(contractMismatch(LibraryApiData, library.text)).toBeNull();
    const { items } = library.value();
    const entitledVisible = demoProducts.filter(
      (product) => product.entitlement && product.entitlement.state !== "expired",
    );
    expect(items.map((item) => item.product.name).sort()).toEqual(entitledVisible.map((p) => p.name).sort());
    for (const item of items) {
      const planned = demoProducts.find((product) => product.name === item.product.name);
      expect(item.product.delivery.strategy).toBe(planned?.delivery?.strategy ?? "manual");
      expect(item.setup_progress.total_count).toBe(planned?.manual?.install_steps.length ?? 0);
    }
    const channels = await db.selectDistinct({ channel: schema.releases.channel }).from(schema.releases);
    expect(channels.map((row) => row.channel).sort()).toEqual(["alpha", "beta", "dev", "stable"]);
  });

  it("stores every demo release file as a real archive of its kind: tar.gz, zip, vsix and dmg all unpack", async () => {
    const db = testDb.db;
    const { productIds } = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    const dir = mkdtempSync(path.join(tmpdir(), "shelf-demo-files-"));
    const seen = new Set<string>();
    const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: "utf8" });
    try {
      for (const [index, product] of demoProducts.entries()) {
        const payload = product.delivery?.payload;
        const stored = await db
          .select({ version: schema.releases.version, key: schema.releases.artifactKey })
          .from(schema.releases)
          .where(eq(schema.releases.productId, productIds[index] as number));
        expect(stored.length).toBe(product.releases.length);
        for (const release of stored) {
          const format = product.releases.find((planned) => planned.version === release.version)
            ?.artifactFormat as string;
          seen.add(format);
          const file = path.join(dir, `${product.slug}-${release.version}.${format}`);
          writeFileSync(file, await buffer(await files.store.open(release.key as string)));
          const into = path.join(dir, product.slug, release.version);
          mkdirSync(into, { recursive: true });
          const where = `${product.slug} ${release.version}`;
          if (format === "tar.gz") {
            run("tar", ["-xzf", file, "-C", into]);
            const binary = path.join(into, payload?.binary_path as string);
            expect(run(binary, []), where).toBe(`${product.name} ${release.version} (a Shelf demo tool)\n`);
          } else if (format === "zip" || format === "vsix") {
            // unzip's own check of every entry's CRC-32, then the files themselves.
            run("unzip", ["-tq", file]);
            run("unzip", ["-q", file, "-d", into]);
            if (format === "vsix") {
              const manifest = JSON.parse(readFileSync(path.join(into, "extension", "package.json"), "utf8"));
              expect(`${manifest.publisher}.${manifest.name}`, where).toBe(payload?.extension_id);
              expect(manifest.version, where).toBe(release.version);
              expect(readFileSync(path.join(into, "extension.vsixmanifest"), "utf8")).toContain(
                `Version="${release.version}"`,
              );
              expect(readFileSync(path.join(into, "[Content_Types].xml"), "utf8")).toContain("<Types");
            } else {
              const root = payload?.root ?? product.slug;
              const readme = path.join(
                into,
                root,
                product.delivery?.strategy === "agent-skill" ? "SKILL.md" : "README.md",
              );
              expect(readFileSync(readme, "utf8"), where).toContain(product.name);
            }
          } else if (format === "dmg") {
            // 7-Zip reads the UDIF image (checking its CRC-32s), then the FAT volume inside it.
            expect(run("7z", ["t", "-tdmg", file]), where).toContain("Everything is Ok");
            run("7z", ["x", "-tdmg", `-o${into}`, file]);
            const volume = path.join(into, "0.MS-DOS");
            run("7z", ["x", `-o${path.join(into, "volume")}`, volume]);
            const app = path.join(into, "volume", payload?.app_path as string);
            const info = readFileSync(path.join(app, "Contents", "Info.plist"), "utf8");
            expect(info, where).toContain(`<key>CFBundleShortVersionString</key><string>${release.version}</string>`);
            expect(info, where).toContain(`<string>${payload?.bundle_id}</string>`);
          } else {
            throw new Error(`${where}: a ${format} file this test does not know how to open`);
          }
        }
      }
      expect([...seen].sort()).toEqual(["dmg", "tar.gz", "vsix", "zip"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stores each agent skill's .zip as a real archive whose SKILL.md names the skill (what shelf install unpacks)", async () => {
    const db = testDb.db;
    const { productIds } = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    const skills = demoProducts.flatMap((product, index) =>
      product.delivery?.strategy === "agent-skill" ? [{ product, productId: productIds[index] as number }] : [],
    );
    expect(skills.map(({ product }) => product.slug).sort()).toEqual(["meeting-minutes", "release-notes-writer"]);
    const dir = mkdtempSync(path.join(tmpdir(), "shelf-demo-skill-"));
    try {
      for (const { product, productId } of skills) {
        const root = product.delivery?.payload.root as string;
        const stored = await db
          .select({ version: schema.releases.version, key: schema.releases.artifactKey })
          .from(schema.releases)
          .where(eq(schema.releases.productId, productId));
        expect(stored.length).toBeGreaterThan(0);
        for (const release of stored) {
          const archive = path.join(dir, `${product.slug}-${release.version}.zip`);
          const bytes = await buffer(await files.store.open(release.key as string));
          writeFileSync(archive, bytes);
          // unzip's own check of every entry's CRC-32, then the files themselves.
          execFileSync("unzip", ["-tq", archive]);
          const into = path.join(dir, product.slug, release.version);
          mkdirSync(into, { recursive: true });
          execFileSync("unzip", ["-q", archive, "-d", into]);
          const skill = readFileSync(path.join(into, root, "SKILL.md"), "utf8");
          expect(skill.split("\n").slice(0, 4)).toEqual([
            "---",
            `name: ${product.slug}`,
            `description: ${JSON.stringify(product.description)}`,
            "---",
          ]);
          expect(readFileSync(path.join(into, root, "README.md"), "utf8")).toContain(
            `${product.name} ${release.version}`,
          );
          // Fixed times: every entry dated 2026-01-01 00:00, so every seed stores the same bytes.
          const listing = execFileSync("unzip", ["-Z", "-T", archive], { encoding: "utf8" });
          expect(listing.match(/ 20260101\.000000 /g)?.length).toBe(2);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets the demo key try licensing: a seat on a limited app, a signed certificate, the demo pass", async () => {
    const { db } = testDb;
    const { key, keyId } = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    // A demo key made before the device abilities joined it gains them at the next seed.
    await db
      .update(schema.apiKeys)
      .set({ abilities: ["products.read"] })
      .where(eq(schema.apiKeys.id, keyId));
    const reseeded = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    expect(reseeded.key).toBe(key);
    const caller = await callerFor(db, key, files);
    const limited = demoProducts.find(
      (product) => product.deviceLimit && product.entitlement && !product.entitlement.state,
    );
    const [row] = await db
      .select({ id: schema.products.id })
      .from(schema.products)
      .where(eq(schema.products.name, limited?.name as string));
    const check = await caller.license.check({ product_id: row?.id, device_id: "demo-device" });
    expect(check).toMatchObject({ licensed: true, code: "valid", device_limit: limited?.deviceLimit, devices_used: 1 });
    expect(check.certificate).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await caller.license.passCheck({})).toMatchObject({ has_active_pass: true, tier: "all-access" });
  });
});

describe("the demo's ended product", () => {
  it("is listed with the library's ended products, as expired, with where to renew it", async () => {
    const { db } = testDb;
    const { accountId } = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    const { caller } = await signedInCaller(db, accountId);
    const expired = demoProducts.filter((product) => product.entitlement?.state === "expired");
    const ended = await caller.library.endedAll();
    expect(ended.map((product) => product.product_name)).toEqual(expired.map((product) => product.name));
    for (const product of ended) {
      expect(Date.parse(product.access_expires_at as string)).toBeLessThan(Date.now());
      expect(product.purchase_url).toMatch(/^https:\/\/shelf\.test\/store\//);
    }
  });
});

describe("demo images", () => {
  it("gives every product a hero image", () => {
    expect(demoProducts.filter((product) => !product.heroPath).map((product) => product.name)).toEqual([]);
  });

  it("stores every hero image the catalog names as a small PNG content asset at its hero_path", async () => {
    const { db } = testDb;
    const { productIds } = await seedDemo(db, { brand: "shelf", secret: SECRET, files });
    const named = demoProducts.flatMap((product, index) =>
      product.heroPath ? [{ productId: productIds[index] as number, path: product.heroPath }] : [],
    );
    expect(named.length).toBeGreaterThan(5);
    for (const { productId, path } of named) {
      const [asset] = await db
        .select()
        .from(schema.productContentAssets)
        .where(and(eq(schema.productContentAssets.productId, productId), eq(schema.productContentAssets.path, path)));
      expect(asset, path).toMatchObject({ contentType: "image/png" });
      expect(asset?.size, path).toBeLessThan(16 * 1024);
      const bytes = await buffer(await files.store.open(asset?.storageKey as string));
      expect(bytes.subarray(0, 8).toString("hex"), path).toBe("89504e470d0a1a0a");
    }
  });
});
