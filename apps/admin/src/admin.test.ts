import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { accountAbilities, defaultAbilities, loadDeliveryFiles, readApiEnv, verifyPassword } from "@shelf/api";
import { callerFor, createAccount, createKey, createProduct, createRelease } from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { countDemoRows, loadDemoSecret, seedDemo } from "@shelf/demo";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ADMIN_COMMAND, type CliResult, repoRoot, withAdminCli } from "./cli-harness";

const cli = withAdminCli("shelf-admin-");
const { testDb, admin, adminJson, expectFailure } = cli;

const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("account:create", () => {
  it("creates an account with an argon2id password hash and refuses the same email in another case", async () => {
    const email = uniqueEmail("Ann");
    const created = await adminJson("account:create", "--email", email, "--name", "Ann", "--password", "s3cret-words");
    expect(created).toEqual({
      id: expect.any(Number),
      email,
      name: "Ann",
      has_password: true,
      created_at: expect.any(String),
    });
    const [row] = await testDb.db.select().from(schema.accounts).where(eq(schema.accounts.id, created.id));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row?.passwordHash).not.toContain("s3cret-words");
    await expect(verifyPassword("s3cret-words", row?.passwordHash as string)).resolves.toBe(true);

    await expectFailure(["account:create", "--email", email.toUpperCase()], /already exists/);
  });
});

describe("key:create", () => {
  it("prints the plain key once and stores only its SHA-256 hash and 14-character prefix", async () => {
    const email = uniqueEmail("keys");
    const account = await createAccount(testDb.db, { email });
    const [created, device] = await Promise.all([
      adminJson("key:create", "--email", email, "--name", "laptop"),
      adminJson("key:create", "--email", email.toUpperCase(), "--device"),
    ]);

    expect(created).toMatchObject({
      account_id: account.id,
      product_id: null,
      kind: "created",
      name: "laptop",
      abilities: [...defaultAbilities.created],
      expires_at: null,
      revoked_at: null,
    });
    expect(created.key).toMatch(/^shelf_[1-9A-HJ-NP-Za-km-z]{32}$/);
    expect(created.prefix).toBe(created.key.slice(0, 14));

    expect(device).toMatchObject({ kind: "device", abilities: [...defaultAbilities.device] });
    const idleDays = (Date.parse(device.expires_at) - Date.now()) / 86_400_000;
    expect(idleDays).toBeGreaterThan(89);
    expect(idleDays).toBeLessThanOrEqual(90);

    const rows = await testDb.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, account.id));
    expect(rows).toHaveLength(2);
    for (const output of [created, device]) {
      const row = rows.find((candidate) => candidate.id === output.id);
      expect(row?.hash).toBe(sha256(output.key));
      expect(row?.prefix).toBe(output.key.slice(0, 14));
      expect(JSON.stringify(row)).not.toContain(output.key);
    }
  });

  it("creates a product-scoped key with chosen abilities, name and expiry", async () => {
    const email = uniqueEmail("scoped");
    await createAccount(testDb.db, { email });
    const product = await createProduct(testDb.db);
    const expires = new Date(Date.now() + 30 * 86_400_000);
    expires.setUTCMilliseconds(0);
    const key = await adminJson(
      "key:create",
      "--email",
      email,
      "--product",
      String(product.id),
      "--abilities",
      "products.read, orders.read",
      "--expires",
      expires.toISOString(),
    );
    expect(key).toMatchObject({
      product_id: product.id,
      abilities: ["products.read", "orders.read"],
      expires_at: expires.toISOString(),
    });
    const caller = await callerFor(testDb.db, key.key);
    expect((await caller.library.get({})).value()).toEqual({ items: [] });
  });

  it("refuses a fourth live key in one scope with a clear message", async () => {
    const email = uniqueEmail("full");
    const account = await createAccount(testDb.db, { email });
    for (let i = 0; i < 3; i++) await createKey(testDb.db, account.id);
    const result = await admin("key:create", "--email", email, "--json");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/At most 3 live keys per scope/);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: "api_key_limit_reached" });
    const rows = await testDb.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, account.id));
    expect(rows).toHaveLength(3);
  });

  it("explains bad arguments and exits non-zero without creating anything", async () => {
    const email = uniqueEmail("bad");
    const account = await createAccount(testDb.db, { email });
    await Promise.all([
      expectFailure(["key:create", "--email", email, "--abilities", "products.read,root"], /Unknown ability "root"/),
      expectFailure(["key:create", "--email", email, "--product", "999999"], /Product not found/),
      expectFailure(["key:create", "--email", uniqueEmail("nobody")], /No account with the email/),
    ]);
    const rows = await testDb.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, account.id));
    expect(rows).toHaveLength(0);
  });
});

describe("key:revoke", () => {
  it("revokes a key by id, and reports an unknown id", async () => {
    const account = await createAccount(testDb.db);
    const { key, record } = await createKey(testDb.db, account.id);
    const [revoked] = await Promise.all([
      adminJson("key:revoke", "--id", String(record.id)),
      expectFailure(["key:revoke", "--id", "987654321"], /API key not found/),
    ]);
    expect(revoked).toMatchObject({ id: record.id, account_id: account.id, revoked_at: expect.any(String) });
    expect(revoked).not.toHaveProperty("key");
    await expect((await callerFor(testDb.db, key)).library.get({})).rejects.toThrow(/revoked/);
    const [row] = await testDb.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, record.id));
    expect(row?.revokedAt?.toISOString()).toBe(revoked.revoked_at);
  });
});

describe("product:create and entitlement:grant", () => {
  it("creates a product and grants it, and the grant shows in the account's library", async () => {
    const email = uniqueEmail("buyer");
    const account = await createAccount(testDb.db, { email });
    const product = await adminJson(
      "product:create",
      "--name",
      "Night Owl",
      "--slug",
      `night-owl-${account.id}`,
      "--price-cents",
      "1299",
      "--currency",
      "eur",
      "--unpublished",
      "--device-limit",
      "2",
    );
    expect(product).toMatchObject({
      id: expect.any(Number),
      name: "Night Owl",
      unit_price_cents: 1299,
      currency: "EUR",
      published: false,
      device_limit: 2,
    });
    const [row] = await testDb.db.select().from(schema.products).where(eq(schema.products.id, product.id));
    expect(row).toMatchObject({ name: "Night Owl", unitPriceCents: 1299, published: false, deviceLimit: 2 });

    const expires = new Date(Date.now() + 365 * 86_400_000);
    expires.setUTCMilliseconds(0);
    const [entitlement] = await Promise.all([
      adminJson(
        "entitlement:grant",
        "--email",
        email,
        "--product",
        String(product.id),
        "--expires",
        expires.toISOString(),
        "--updates-until",
        "2026-01-01",
      ),
      expectFailure(["entitlement:grant", "--email", email, "--product", "999999"], /Product not found/),
    ]);
    expect(entitlement).toMatchObject({
      account_id: account.id,
      product_id: product.id,
      grant_type: "grant",
      access_expires_at: expires.toISOString(),
      updates_supported_until: "2026-01-01T00:00:00.000Z",
      revoked_at: null,
    });

    const { key } = await createKey(testDb.db, account.id);
    const library = (await (await callerFor(testDb.db, key)).library.get({})).value();
    expect(library.items.map((item) => item.product.id)).toEqual([product.id]);
    expect(library.items[0]?.access_source).toBe("grant");
  });
});

describe("a database that cannot be used", () => {
  it("is one line naming what failed, without a stack", async () => {
    for (const [url, message] of [
      ["postgres://127.0.0.1:1/shelf", /connection refused/],
      ["postgres://127.0.0.1:5432/shelf_missing_db", /database "shelf_missing_db" does not exist/],
      ["mysql://127.0.0.1/shelf", /DATABASE_URL must be a postgres:\/\//],
    ] as const) {
      const result = await new Promise<CliResult>((resolve) => {
        execFile(
          ADMIN_COMMAND[0],
          [...ADMIN_COMMAND.slice(1), "account:create", "--email", "x@example.test"],
          { cwd: repoRoot, env: { ...process.env, DATABASE_URL: url } },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        );
      });
      expect(result.code, url).toBe(1);
      expect(result.stderr.trim().split("\n"), url).toHaveLength(1);
      expect(result.stderr, url).toMatch(message);
    }
  });
});

describe("release:yank", () => {
  it("withdraws a release once and for all, and says so for an unknown one", async () => {
    const product = await createProduct(testDb.db);
    const release = await createRelease(testDb.db, product.id, { version: "1.4.0" });
    const first = await adminJson("release:yank", "--id", String(release.id));
    expect(first).toMatchObject({ id: release.id, product_id: product.id, version: "1.4.0", channel: "stable" });
    const second = await adminJson("release:yank", "--id", String(release.id));
    expect(second.yanked_at).toBe(first.yanked_at);
    await expectFailure(["release:yank", "--id", "2000000000"], /Release not found/);
  });
});

describe("release:publish and asset:put", () => {
  it("publishes a file once per version with its measured sha256, and refuses mistakes before storing anything", async () => {
    const product = await createProduct(testDb.db);
    const file = path.join(cli.dataDir, "tool-2.0.0.zip");
    const bytes = Buffer.from("a release file's bytes");
    await fs.writeFile(file, bytes);
    const published = await adminJson(
      "release:publish",
      ...["--product", String(product.id), "--version", "2.0.0", "--file", file, "--channel", "beta"],
      ...["--notes-en", "New", "--min-os", "13.0", "--build", "200", "--platform", "macos-arm64", "--critical"],
    );
    expect(published).toMatchObject({
      product_id: product.id,
      version: "2.0.0",
      channel: "beta",
      build: "200",
      filename: "tool-2.0.0.zip",
      sha256: sha256("a release file's bytes"),
      size: bytes.length,
      content_type: "application/zip",
    });
    expect(Buffer.from(published.signature, "base64")).toHaveLength(64);
    const [row] = await testDb.db.select().from(schema.releases).where(eq(schema.releases.id, published.id));
    expect(row).toMatchObject({ minOsVersion: "13.0", platform: "macos-arm64", critical: true, notesEn: "New" });

    const again = ["release:publish", "--product", String(product.id), "--file", file];
    await expectFailure([...again, "--version", "2.0.0"], /Version 2\.0\.0 of product \d+ is already published/);
    await expectFailure([...again, "--version", "2.0"], /--version must be a semantic version/);
    await expectFailure([...again, "--version", "2.1.0", "--channel", "nightly"], /--channel/);
    await expectFailure([...again, "--version", "2.1.0", "--platform", "amiga"], /--platform must be/);
    await expectFailure(
      ["release:publish", "--product", String(product.id), "--version", "2.1.0", "--file", `${file}.missing`],
      /no such file/,
    );
    await expectFailure(
      ["release:publish", "--product", "2000000000", "--version", "2.1.0", "--file", file],
      /There is no product 2000000000/,
    );
    expect(await testDb.db.$count(schema.releases, eq(schema.releases.productId, product.id))).toBe(1);
  });

  it("stores a content asset at a path, replaces it, and refuses traversal", async () => {
    const product = await createProduct(testDb.db);
    const file = path.join(cli.dataDir, "install.sh");
    await fs.writeFile(file, "#!/bin/sh\n");
    const put = () =>
      adminJson("asset:put", "--product", String(product.id), "--path", "install/macos.sh", "--file", file);
    const first = await put();
    expect(first).toMatchObject({
      path: "install/macos.sh",
      size: 10,
      content_type: "application/x-sh",
      replaced: false,
    });
    const second = await put();
    expect(second).toMatchObject({ id: first.id, replaced: true });
    await expectFailure(
      ["asset:put", "--product", String(product.id), "--path", "install/../../x", "--file", file],
      /--path must be a relative path/,
    );
  });
});

describe("signing:public-key", () => {
  it("prints the signing key's Sparkle public key without opening the database, the same every time", async () => {
    const first = await adminJson("signing:public-key");
    expect(first.algorithm).toBe("Ed25519");
    expect(Buffer.from(first.public_key, "base64")).toHaveLength(32);
    expect(first.kid).toMatch(/^[\w-]{43}$/);
    const offline = await new Promise<CliResult>((resolve) => {
      execFile(
        ADMIN_COMMAND[0],
        [...ADMIN_COMMAND.slice(1), "signing:public-key", "--json"],
        {
          cwd: repoRoot,
          env: { ...process.env, DATABASE_URL: "postgres://127.0.0.1:1/none", SHELF_DATA_DIR: cli.dataDir },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
    expect(offline.code, offline.stderr).toBe(0);
    expect(JSON.parse(offline.stdout)).toEqual(first);
    const stored = JSON.parse(await fs.readFile(path.join(cli.dataDir, "signing-keys.json"), "utf8"));
    expect(stored.keys.map((key: { kid: string }) => key.kid)).toEqual([first.kid]);
  });
});

describe("demo", () => {
  it("seeds the demo data set idempotently and prints the same working key every time, as the server does", async () => {
    const first = await adminJson("demo");
    const countsAfterFirst = await countDemoRows(testDb.db);
    const second = await adminJson("demo");
    expect(await countDemoRows(testDb.db)).toEqual(countsAfterFirst);

    expect(second.account_id).toBe(first.account_id);
    expect(second.product_ids).toEqual(first.product_ids);
    expect(second.product_ids).toHaveLength(12);
    expect(second.prefix).toBe(second.key.slice(0, 14));
    expect(second.key).toBe(first.key);
    const secret = await loadDemoSecret(cli.dataDir);
    const files = await loadDeliveryFiles(readApiEnv({} as NodeJS.ProcessEnv), cli.dataDir);
    expect((await seedDemo(testDb.db, { brand: "shelf", secret, files })).key).toBe(first.key);

    const demoKeys = await testDb.db
      .select()
      .from(schema.apiKeys)
      .where(eq(schema.apiKeys.accountId, second.account_id));
    expect(demoKeys.filter((key) => key.revokedAt === null).map((key) => key.prefix)).toEqual([second.prefix]);
    // The demo key holds every account ability, so that it tries the whole API.
    expect(demoKeys.find((key) => key.prefix === second.prefix)?.abilities.sort()).toEqual(
      [...accountAbilities].sort(),
    );

    const library = (await (await callerFor(testDb.db, second.key)).library.get({})).value();
    const names = library.items.map((item) => item.product.name);
    expect(names.length).toBeGreaterThanOrEqual(8);
    expect(names).toContain("Atlas Design Kit");
    expect(names).not.toContain("Logbook");
    expect(names).not.toContain("Palette Pro");
    const byName = (name: string) => library.items.find((item) => item.product.name === name);
    expect(byName("Focus Dock")?.bundle).toMatchObject({ available: false, download_url: null });
    expect(byName("Lumen Notes")?.bundle).toMatchObject({
      available: true,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(byName("Gitscope")?.mcp_server?.tools.length).toBeGreaterThan(0);
    expect(new Set(library.items.map((item) => item.access_source))).toEqual(new Set(["purchase", "grant"]));

    const caller = await callerFor(testDb.db, second.key);
    const { products } = await caller.products.list({});
    expect(products.map((product) => product.id)).toEqual(expect.arrayContaining(second.product_ids));
    const gitscope = products.find((product) => product.name === "Gitscope");
    expect(gitscope?.primary_category?.parent_id).not.toBeNull();
    expect(gitscope?.categories.length).toBeGreaterThan(1);
    expect(gitscope?.tags.map((tag) => tag.name)).toContain("Claude Code");
    expect((await caller.products.contentCss({})).body).toMatch(/\.lumen-notes-detail/);
  });
});

describe("usage", () => {
  it("prints help with exit 0 and rejects an unknown command with exit 2", async () => {
    const [help, unknown] = await Promise.all([admin("--help"), admin("frobnicate")]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/key:create/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown command "frobnicate"/);
    expect(unknown.stderr).toMatch(/Usage:/);
  });
});
