import { schema } from "@shelf/db";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { toDeliveryData, typeLabel } from "../../catalog/delivery-data";
import {
  callerFor,
  createAccountWithKey,
  createKey,
  createProduct,
  createRelease,
  grantEntitlement,
  signedInCaller,
} from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { LibraryApiData } from "./schemas";

let statements = 0;
const { testDb, request } = withApiSuite({ database: { onQuery: () => statements++ } });

const sha = "a".repeat(64);

describe("GET /api/library", () => {
  it("lists entitled products in the contract's shape, with setup data, release bundle and MCP server", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const app = await createProduct(db, {
      name: "Alpha App",
      kind: "app",
      manual: {
        summary: "How",
        requirements: [],
        install_steps: ["Download", "Open", "Sign in"],
        verification_steps: [],
        troubleshooting: [],
      },
      platforms: ["macos"],
      thumbnailHtml: "<img src=a.png>",
    });
    const skill = await createProduct(db, { name: "Beta Skill", kind: "skill", published: false });
    await createProduct(db, { name: "Not Owned" });
    await grantEntitlement(db, account.id, app.id, { grantType: "purchase" });
    await grantEntitlement(db, account.id, skill.id, { grantType: "grant" });
    await createRelease(db, app.id, {
      version: "1.0.0",
      artifactSha256: sha,
      artifactSize: 1234,
      releasedAt: new Date("2026-01-01T00:00:00Z"),
    });
    await createRelease(db, app.id, {
      version: "1.1.0",
      artifactSha256: sha,
      artifactSize: 2345,
      releasedAt: new Date("2026-02-01T00:00:00Z"),
    });
    await createRelease(db, app.id, {
      version: "2.0.0-beta.1",
      channel: "beta",
      releasedAt: new Date("2026-03-01T00:00:00Z"),
    });
    await db.insert(schema.productSetupOutputs).values({ productId: app.id, title: "Report", prompt: "Make a report" });
    await db
      .insert(schema.productInstallAssets)
      .values({ productId: app.id, platform: "macos", label: "Installer", path: "mac/Alpha App.dmg" });
    const [server] = await db
      .insert(schema.mcpServers)
      .values({ accountId: account.id, productId: app.id, name: "alpha" })
      .returning();
    await db.insert(schema.mcpTools).values({ mcpServerId: server!.id, productId: app.id, name: "search" });
    await db
      .insert(schema.setupProgress)
      .values({ accountId: account.id, productId: app.id, completedStepIndexes: [0, 2] });

    const response = await request("/api/library", { key });
    expect(response.status).toBe(200);
    expect(contractMismatch(LibraryApiData, response.text)).toBeNull();
    const items = response.body.items;
    expect(items.map((item: { product: { name: string } }) => item.product.name)).toEqual(["Alpha App", "Beta Skill"]);
    const [alpha, beta] = items;
    expect(alpha.access_source).toBe("purchase");
    expect(alpha.thumbnail_html).toBe("<img src=a.png>");
    expect(alpha.product.type_label).toBe("App");
    expect(alpha.product.delivery.strategy).toBe("manual");
    expect(alpha.product.outputs).toEqual([
      expect.objectContaining({ title: "Report", prompt: "Make a report", action_url: null }),
    ]);
    expect(alpha.product.install_assets).toEqual([
      {
        platform: "macos",
        label: "Installer",
        path: "mac/Alpha App.dmg",
        download_url: `http://shelf.test/api/products/${app.id}/content-assets/mac/Alpha%20App.dmg`,
      },
    ]);
    expect(alpha.setup_progress).toEqual({
      completed_step_indexes: [0, 2],
      completed_count: 2,
      total_count: 3,
      progress_percent: 66,
      completed: false,
      completed_at: null,
    });
    expect(alpha.mcp_server).toMatchObject({
      user_id: account.id,
      product_id: app.id,
      name: "alpha",
      product_name: "Alpha App",
    });
    expect(alpha.mcp_server.tools).toEqual([
      expect.objectContaining({ name: "search", enabled: true, mcp_server_id: server!.id }),
    ]);
    expect(alpha.bundle).toEqual({
      available: true,
      sha256: sha,
      size: 2345,
      download_url: `http://shelf.test/api/products/${app.id}/bundle`,
    });
    expect(beta.access_source).toBe("grant");
    expect(beta.bundle).toBeNull();
    expect(beta.mcp_server).toBeNull();
    expect(beta.setup_progress.total_count).toBe(0);
  });

  it("writes exactly the contract's JSON, as JSON.stringify would, whatever the stored text holds", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const delivery = {
      schema_version: 1,
      strategy: "binary" as const,
      payload: { binary_path: "bin/tool", executable_name: 'to"ol' } as never,
      targets: ["codex" as const, "claude-code" as const],
      dependencies: [
        { kind: "executable" as const, name: "git", version_constraint: null, architectures: [], bundle_id: null },
        {
          kind: "architecture" as const,
          name: null,
          version_constraint: null,
          architectures: ["arm64"],
          bundle_id: null,
        },
      ],
      launch: { kind: "none" as const },
      requires_confirmation: true,
      compatibility: false,
    };
    const odd = 'Quote " backslash \\ newline \n tab \t control \u0001 é 🎉 \u2028 </script>';
    const product = await createProduct(db, {
      name: odd,
      kind: "widget",
      description: null,
      delivery,
      manual: {
        summary: odd,
        requirements: ["a", "b"],
        install_steps: ["one"],
        verification_steps: [],
        troubleshooting: [odd],
      },
      platforms: [],
      runtime: "node 22",
    });
    await grantEntitlement(db, account.id, product.id, { grantType: "trial" });
    await createRelease(db, product.id, { artifactSha256: sha, artifactSize: 5_000_000_123 });
    const path = "dir/Ünï cödé %&?#+'()!*~.txt";
    await db.insert(schema.productInstallAssets).values({ productId: product.id, platform: "linux", label: odd, path });
    await db.execute(sql`insert into setup_progress (account_id, product_id, completed_step_indexes, completed_at)
      values (${account.id}, ${product.id}, '{0,7}', '2026-03-04 05:06:07.123987+00')`);

    const response = await request("/api/library", { key });
    expect(contractMismatch(LibraryApiData, response.text)).toBeNull();
    const [item] = response.body.items;
    expect(response.text).toBe(JSON.stringify(response.body));
    expect(item.product.name).toBe(odd);
    expect(item.product.type_label).toBe(typeLabel("widget"));
    expect(item.product.delivery).toEqual(toDeliveryData(delivery));
    expect(item.product.manual.troubleshooting).toEqual([odd]);
    expect(item.product.install_assets[0].download_url).toBe(
      `http://shelf.test/api/products/${product.id}/content-assets/${path.split("/").map(encodeURIComponent).join("/")}`,
    );
    expect(item.setup_progress).toEqual({
      completed_step_indexes: [0],
      completed_count: 1,
      total_count: 1,
      progress_percent: 100,
      completed: true,
      completed_at: "2026-03-04T05:06:07.123Z",
    });
    expect(item.bundle.size).toBe(5_000_000_123);
    expect(item.access_source).toBe("trial");
  });

  it("writes the manual delivery and type labels of the TypeScript rules for every kind", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const kinds = ["app", "skill", "extension", "tool", "template", "course", "x"];
    for (const kind of kinds) {
      const product = await createProduct(db, { name: `Kind ${kind}`, kind, manual: null, delivery: null });
      await grantEntitlement(db, account.id, product.id);
    }
    const { items } = (await request("/api/library", { key })).body;
    expect(items).toHaveLength(kinds.length);
    for (const item of items) {
      expect(item.product.type_label).toBe(typeLabel(item.product.name.replace("Kind ", "")));
    }
    for (const item of items) {
      expect(item.product.delivery).toEqual(toDeliveryData(null));
      expect(item.product.manual).toBeNull();
      expect(item.setup_progress).toEqual({
        completed_step_indexes: [],
        completed_count: 0,
        total_count: 0,
        progress_percent: 0,
        completed: false,
        completed_at: null,
      });
    }
  });

  it("leaves out revoked and expired entitlements and marks a bundle past the update window unavailable", async () => {
    const { db } = testDb;
    const { account, key } = await createAccountWithKey(db);
    const revoked = await createProduct(db);
    const expired = await createProduct(db);
    const windowed = await createProduct(db, { name: "Windowed" });
    await grantEntitlement(db, account.id, revoked.id, { revokedAt: new Date() });
    await grantEntitlement(db, account.id, expired.id, { accessExpiresAt: new Date(Date.now() - 1000) });
    await grantEntitlement(db, account.id, windowed.id, { updatesSupportedUntil: new Date("2026-01-15T00:00:00Z") });
    await createRelease(db, windowed.id, {
      version: "3.0.0",
      artifactSha256: sha,
      artifactSize: 10,
      releasedAt: new Date("2026-02-01T00:00:00Z"),
    });

    const response = await request("/api/library", { key });
    expect(response.body.items).toHaveLength(1);
    expect(response.body.items[0].bundle).toEqual({ available: false, sha256: sha, size: 10, download_url: null });
  });

  it("shows a product-scoped key only its product", async () => {
    const { db } = testDb;
    const { account } = await createAccountWithKey(db);
    const first = await createProduct(db);
    const second = await createProduct(db);
    await grantEntitlement(db, account.id, first.id);
    await grantEntitlement(db, account.id, second.id);
    const scoped = await createKey(db, account.id, { productId: second.id });
    const response = await request("/api/library", { key: scoped.key });
    expect(response.body.items.map((item: { product: { id: number } }) => item.product.id)).toEqual([second.id]);
  });

  it("shows each buyer of the same product only their own MCP server and setup progress", async () => {
    const { db } = testDb;
    const product = await createProduct(db, {
      manual: {
        summary: null,
        requirements: [],
        install_steps: ["One", "Two"],
        verification_steps: [],
        troubleshooting: [],
      },
    });
    const owner = await createAccountWithKey(db);
    const neighbour = await createAccountWithKey(db);
    for (const { account } of [owner, neighbour]) await grantEntitlement(db, account.id, product.id);
    const [server] = await db
      .insert(schema.mcpServers)
      .values({ accountId: neighbour.account.id, productId: product.id, name: "Neighbour's server" })
      .returning();
    await db.insert(schema.mcpTools).values({ mcpServerId: server?.id as number, productId: product.id, name: "peek" });
    await db.insert(schema.setupProgress).values({
      accountId: neighbour.account.id,
      productId: product.id,
      completedStepIndexes: [0, 1],
      completedAt: new Date(),
    });

    const mine = (await request("/api/library", { key: owner.key })).body.items[0];
    expect(mine.mcp_server).toBeNull();
    expect(mine.setup_progress).toMatchObject({ completed_step_indexes: [], completed_count: 0, completed: false });

    const theirs = (await request("/api/library", { key: neighbour.key })).body.items[0];
    expect(theirs.mcp_server).toMatchObject({
      id: server?.id,
      user_id: neighbour.account.id,
      name: "Neighbour's server",
    });
    expect(theirs.setup_progress).toMatchObject({ completed_step_indexes: [0, 1], completed: true });

    await db
      .insert(schema.setupProgress)
      .values({ accountId: owner.account.id, productId: product.id, completedStepIndexes: [1] });
    const [ownServer] = await db
      .insert(schema.mcpServers)
      .values({ accountId: owner.account.id, productId: product.id, name: "Own server" })
      .returning();
    const both = (await request("/api/library", { key: owner.key })).body.items;
    expect(both).toHaveLength(1);
    expect(both[0].mcp_server).toMatchObject({ id: ownServer?.id, name: "Own server", tools: [] });
    expect(both[0].setup_progress.completed_step_indexes).toEqual([1]);
  });

  it("answers with one SQL statement however many products the account holds", async () => {
    const { db } = testDb;
    const counts: number[] = [];
    for (const size of [1, 25]) {
      const { account, key } = await createAccountWithKey(db);
      for (let i = 0; i < size; i++) {
        const product = await createProduct(db);
        await grantEntitlement(db, account.id, product.id);
        await createRelease(db, product.id, { artifactSha256: sha, artifactSize: 1 });
      }
      const caller = await callerFor(db, key);
      const before = statements;
      const library = await caller.library.get({});
      counts.push(statements - before);
      expect(library.value().items).toHaveLength(size);
    }
    expect(counts).toEqual([1, 1]);
  });
});

describe("ended access (the product page of a product no longer held)", () => {
  it("says how the account's access ended, and nothing while it lasts or for a product never held", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const other = await createAccountWithKey(testDb.db);
    const [lapsed, held, never] = await Promise.all([
      createProduct(testDb.db),
      createProduct(testDb.db),
      createProduct(testDb.db),
    ]);
    const ended = new Date(Date.now() - 86_400_000);
    await grantEntitlement(testDb.db, account.id, lapsed.id, { grantType: "trial", accessExpiresAt: ended });
    await grantEntitlement(testDb.db, account.id, held.id, { accessExpiresAt: ended });
    await grantEntitlement(testDb.db, account.id, held.id);
    await grantEntitlement(testDb.db, other.account.id, never.id, { accessExpiresAt: ended });
    const { caller } = await signedInCaller(testDb.db, account.id);
    expect(await caller.library.ended({ product: lapsed.id })).toEqual({
      product_id: lapsed.id,
      product_name: lapsed.name,
      grant_type: "trial",
      access_expires_at: ended.toISOString(),
      revoked_at: null,
      purchase_url: null,
    });
    expect(await caller.library.ended({ product: held.id })).toBeNull();
    expect(await caller.library.ended({ product: never.id })).toBeNull();
  });
});
