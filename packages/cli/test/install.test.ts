import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { accountAbilities, defaultAbilities, publishing } from "@shelf/api";
import { createAccountWithKey, createKey, createProduct, grantEntitlement } from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ErrorOutput,
  InstallOutput,
  LibraryOutput,
  ProductsOutput,
  ReleasesOutput,
  SetupOutput,
  UninstallOutput,
  UpdateOutput,
  UpdatesOutput,
} from "../src/output";
import {
  LINK_TTL_SECONDS,
  makeHome,
  rawAnswer,
  type ShelfEnv,
  type ShelfServer,
  shelf,
  shelfEnv,
  startServer,
  startShelf,
} from "./harness";

const run = promisify(execFile);
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

let server: ShelfServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

/** A tar.gz holding a skill folder: SKILL.md and a large random file (so a cut lands midway). */
async function skillArchive(): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-cli-archive-"));
  await fs.mkdir(path.join(dir, "skill"));
  await fs.writeFile(path.join(dir, "skill", "SKILL.md"), "# A skill\n");
  await fs.writeFile(path.join(dir, "skill", "data.bin"), randomBytes(400_000));
  await run("tar", ["-czf", path.join(dir, "skill.tar.gz"), "-C", dir, "skill"]);
  const bytes = await fs.readFile(path.join(dir, "skill.tar.gz"));
  await fs.rm(dir, { recursive: true, force: true });
  return bytes;
}

type Strategy = "binary" | "managed-directory" | "agent-skill" | "manual";

async function productWith(
  on: ShelfServer,
  accountId: number,
  strategy: Strategy,
  options: { name?: string; payload?: Record<string, string>; targets?: ("claude-code" | "codex")[] } = {},
) {
  const product = await createProduct(on.db, {
    ...(options.name ? { name: options.name } : {}),
    delivery: {
      schema_version: 1,
      strategy,
      payload: { ...(options.payload ?? {}) } as never,
      targets: options.targets ?? [],
      dependencies: [],
      launch: { kind: "none" },
      requires_confirmation: false,
      compatibility: true,
    },
    manual: {
      summary: null,
      requirements: [],
      install_steps: ["Open the app", "Paste the license", "Restart"],
      verification_steps: [],
      troubleshooting: [],
    },
  });
  await grantEntitlement(on.db, accountId, product.id);
  return product;
}

async function publish(on: ShelfServer, productId: number, version: string, filename: string, bytes: Buffer) {
  return publishing.publishRelease(on.db, on.delivery, { productId, version, filename }, Readable.from([bytes]));
}

type ProxySettings = ShelfServer["proxy"]["settings"];

/**
 * `shelf install --json` of a product while the download proxy misbehaves as `settings` say. Those settings are put
 * back as they were however the install ends, so a failed test leaves no misbehaving proxy to the next one.
 */
async function installWhile(settings: Partial<ProxySettings>, productId: number, env: ShelfEnv) {
  const before = Object.fromEntries(Object.keys(settings).map((name) => [name, server.proxy.settings[name as never]]));
  Object.assign(server.proxy.settings, settings);
  try {
    return await shelf(["install", String(productId), "--json"], env);
  } finally {
    Object.assign(server.proxy.settings, before);
  }
}

/** An account with a key holding every account ability, and a home for the client using it. */
async function user(on: ShelfServer = server) {
  const { account, key } = await createAccountWithKey(on.db, { abilities: [...accountAbilities] });
  const home = await makeHome();
  return { account, key, home, env: shelfEnv(home, { SHELF_BASE_URL: on.baseUrl, SHELF_API_KEY: key }) };
}

/** An account entitled to a managed-directory product whose one release (1.0.0 unless named) is `size` random bytes. */
async function managedRelease(size: number, filename = "data.bin", version = "1.0.0") {
  const { account, env } = await user();
  const product = await productWith(server, account.id, "managed-directory");
  const bytes = randomBytes(size);
  await publish(server, product.id, version, filename, bytes);
  return { account, env, product, bytes };
}

const exists = (file: string) =>
  fs.lstat(file).then(
    () => true,
    () => false,
  );

async function installs(on: ShelfServer, accountId: number) {
  return on.db.select().from(schema.deviceInstalls).where(eq(schema.deviceInstalls.accountId, accountId));
}

/**
 * Where the client resumed, from the Range headers the proxy saw: the first request has none, every later one asks
 * for the same rest. That offset is what the client had read when the cut came: all the bytes the proxy sent before
 * it when the client keeps up, fewer under load (a body stream that fails drops the chunks it had not handed over).
 */
function resumedFrom(ranges: (string | null)[], requests: number): number {
  expect(ranges).toHaveLength(requests);
  expect(ranges[0]).toBeNull();
  const offsets = ranges.slice(1).map((range) => Number(/^bytes=(\d+)-$/.exec(range ?? "")?.[1]));
  expect(new Set(offsets).size).toBe(1);
  return offsets[0] as number;
}

function json<T>(schemaOf: { parse: (value: unknown) => T }, output: { stdout: string }): T {
  return schemaOf.parse(JSON.parse(output.stdout));
}

describe("the catalog", () => {
  it("lists the library, the products and a product's releases, naming products by id, name or slug", async () => {
    const { account, env } = await user();
    const product = await productWith(server, account.id, "manual", {
      name: `Color Picker ${randomBytes(3).toString("hex")}`,
    });
    await publish(server, product.id, "1.0.0", "picker.zip", randomBytes(100));
    const library = json(LibraryOutput, await shelf(["library", "--json"], env));
    expect(library.items).toEqual([
      expect.objectContaining({ id: product.id, name: product.name, strategy: "manual", installed_version: null }),
    ]);
    const products = json(ProductsOutput, await shelf(["products", "--json", "--q", product.name], env));
    expect(products.products.map((entry) => entry.id)).toContain(product.id);
    for (const term of [String(product.id), product.name, product.name.toLowerCase().replaceAll(" ", "-")]) {
      const releases = json(ReleasesOutput, await shelf(["releases", term, "--json"], env));
      expect(releases.product.id, term).toBe(product.id);
      expect(releases.releases.map((release) => release.version)).toEqual(["1.0.0"]);
    }
    const human = await shelf(["library"], env);
    expect(human.stdout).toContain(product.name);
  });

  it("refuses an ambiguous name with exit 2 listing the candidates, and an unknown one with exit 6", async () => {
    const { account, env } = await user();
    const tag = randomBytes(3).toString("hex");
    const first = await productWith(server, account.id, "manual", { name: `Twin ${tag} One` });
    const second = await productWith(server, account.id, "manual", { name: `Twin ${tag} Two` });
    const ambiguous = await shelf(["install", `twin ${tag}`, "--json"], env);
    expect(ambiguous.code).toBe(2);
    const error = json(ErrorOutput, ambiguous).error;
    expect(error.code).toBe("ambiguous_product");
    expect(error.details?.candidates).toEqual([
      { id: first.id, name: first.name },
      { id: second.id, name: second.name },
    ]);
    expect(ambiguous.stderr).toContain(`${first.id}  ${first.name}`);
    const unknown = await shelf(["install", `nothing-${tag}`], env);
    expect(unknown.code).toBe(6);
    expect(unknown.stderr).toContain("No product matches");
  });

  it("says exit 5 for a product of the catalog the account is not entitled to", async () => {
    const { env } = await user();
    const other = await createProduct(server.db, { name: `Not Yours ${randomBytes(3).toString("hex")}` });
    const refused = await shelf(["install", String(other.id), "--json"], env);
    expect(refused.code).toBe(5);
    expect(json(ErrorOutput, refused).error.code).toBe("product_entitlement_required");
  });
});

describe("shelf install", () => {
  it("resumes a download cut midway with Range, verifies its sha256 and installs an agent skill with its targets", async () => {
    const { account, env, home } = await user();
    const product = await productWith(server, account.id, "agent-skill", {
      payload: { root: "skill" },
      targets: ["claude-code"],
    });
    const bytes = await skillArchive();
    await publish(server, product.id, "1.0.0", "skill.tar.gz", bytes);
    const half = Math.floor(bytes.length / 2);
    server.proxy.settings.cutAfter = half;
    server.proxy.settings.ranges = [];
    const cutsBefore = server.proxy.settings.cuts;
    const result = await shelf(["install", String(product.id), "--json"], env);
    expect(result.code, result.stderr).toBe(0);
    expect(server.proxy.settings.cuts).toBe(cutsBefore + 1);
    // The second request asked for the rest only: from what the client had read before the cut.
    const from = resumedFrom(server.proxy.settings.ranges, 2);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(half);
    expect(result.stderr).toContain("The download was interrupted");
    const output = json(InstallOutput, result);
    expect(output).toMatchObject({ version: "1.0.0", strategy: "agent-skill", sha256: sha256(bytes), recorded: true });
    expect(sha256(await fs.readFile(output.file))).toBe(sha256(bytes));
    const installedTo = output.installed_to as string;
    expect(await fs.readFile(path.join(installedTo, "SKILL.md"), "utf8")).toBe("# A skill\n");
    const link = output.links[0] as string;
    expect(link.startsWith(path.join(home, ".claude", "skills"))).toBe(true);
    expect(await fs.readlink(link)).toBe(installedTo);
    expect((await installs(server, account.id)).map((row) => row.version)).toEqual(["1.0.0"]);
    expect(json(LibraryOutput, await shelf(["library", "--json"], env)).items[0]?.installed_version).toBe("1.0.0");
  });

  it("starts over cleanly when the server answers a resumed download with the whole file (200, not 206)", async () => {
    const { env, product, bytes } = await managedRelease(200_000, "whole.bin");
    server.proxy.settings.cutAfter = 120_000;
    const result = await installWhile({ stripRange: true }, product.id, env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("The server sent the whole file instead of the rest: starting over.");
    const output = json(InstallOutput, result);
    expect(await fs.readFile(path.join(output.installed_to as string, "whole.bin"))).toEqual(bytes);
  });

  it("refuses a file altered on the way: exit 8, nothing installed, nothing kept", async () => {
    const { account, env } = await user();
    const product = await productWith(server, account.id, "managed-directory");
    await publish(server, product.id, "1.0.0", "data.bin", randomBytes(50_000));
    const result = await installWhile({ tamper: true }, product.id, env);
    expect(result.code).toBe(8);
    expect(json(ErrorOutput, result).error.code).toBe("checksum_mismatch");
    const data = path.join(env.XDG_DATA_HOME as string, "shelf");
    expect(await exists(path.join(data, "installs.json"))).toBe(false);
    expect(await exists(path.join(data, "installs"))).toBe(false);
    expect(await fs.readdir(path.join(data, "downloads", String(product.id)))).toEqual([]);
    expect(await installs(server, account.id)).toEqual([]);
  });

  it("renews a link that expired in the middle of a download from a new install plan", async () => {
    const { env, product, bytes } = await managedRelease(300_000, "payload.bin", "2.0.0");
    // Half the file, then the connection drops once the link's life has passed on the server's clock.
    server.proxy.settings.cutAfter = 150_000;
    server.proxy.settings.ranges = [];
    server.proxy.settings.onCut = () => server.passTime(LINK_TTL_SECONDS + 1);
    const result = await shelf(["install", product.name, "--json"], env);
    expect(result.code, result.stderr).toBe(0);
    const output = json(InstallOutput, result);
    // The old link asked for the rest and was refused as expired; the new plan's link asked for the same rest.
    const from = resumedFrom(server.proxy.settings.ranges, 3);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(150_000);
    expect(output.links_renewed).toBe(1);
    expect(result.stderr).toContain("The download link expired");
    expect(await fs.readFile(path.join(output.installed_to as string, "payload.bin"))).toEqual(bytes);
  });

  it("installs a binary as an executable into --dir, and shows a manual product's steps", async () => {
    const { account, env } = await user();
    const tool = await productWith(server, account.id, "binary", { payload: { executable_name: "tool" } });
    const script = Buffer.from("#!/bin/sh\necho tool-ran\n");
    await publish(server, tool.id, "3.1.0", "tool", script);
    const bin = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-cli-bin-"));
    const installed = json(InstallOutput, await shelf(["install", String(tool.id), "--dir", bin, "--json"], env));
    expect(installed.installed_to).toBe(path.join(bin, "tool"));
    expect((await fs.stat(path.join(bin, "tool"))).mode & 0o777).toBe(0o755);
    expect((await run(path.join(bin, "tool"))).stdout).toBe("tool-ran\n");

    const guide = await productWith(server, account.id, "manual");
    await publish(server, guide.id, "1.0.0", "guide.pdf", randomBytes(2000));
    const manual = await shelf(["install", String(guide.id)], env);
    expect(manual.code, manual.stderr).toBe(0);
    expect(manual.stdout).toContain("1. Open the app");
    expect(manual.stdout).toContain("3. Restart");
    expect(manual.stdout).toContain(`shelf setup ${guide.id} --done`);
    const setup = json(SetupOutput, await shelf(["setup", String(guide.id), "--done", "1,2", "--json"], env));
    expect(setup).toMatchObject({ completed_steps: [1, 2], completed_count: 2, total_count: 3, completed: false });
    const bad = await shelf(["setup", String(guide.id), "--done", "first"], env);
    expect(bad.code).toBe(2);
  });

  it("finds and installs updates, then uninstalls", async () => {
    const { account, env } = await user();
    const product = await productWith(server, account.id, "managed-directory");
    await publish(server, product.id, "1.0.0", "app.bin", randomBytes(1000));
    expect((await shelf(["install", String(product.id)], env)).code).toBe(0);
    expect(json(UpdatesOutput, await shelf(["updates", "--json"], env)).updates).toEqual([
      expect.objectContaining({ id: product.id, installed_version: "1.0.0", update_available: false }),
    ]);
    const newer = randomBytes(1000);
    await publish(server, product.id, "1.1.0", "app.bin", newer);
    expect(json(UpdatesOutput, await shelf(["updates", "--json"], env)).updates[0]).toMatchObject({
      current_version: "1.1.0",
      update_available: true,
    });
    const updated = json(UpdateOutput, await shelf(["update", "--json"], env));
    expect(updated.updated.map((entry) => entry.version)).toEqual(["1.1.0"]);
    const installedTo = updated.updated[0]?.installed_to as string;
    expect(await fs.readFile(path.join(installedTo, "app.bin"))).toEqual(newer);
    const removed = json(UninstallOutput, await shelf(["uninstall", String(product.id), "--json"], env));
    expect(removed.removed).toContain(installedTo);
    expect(await exists(installedTo)).toBe(false);
    expect(json(UpdatesOutput, await shelf(["updates", "--json"], env)).updates).toEqual([]);
  });

  it("says what to do when the key cannot record setup steps, as a device sign-in key cannot (exit 5)", async () => {
    const { account } = await createAccountWithKey(server.db);
    // Exactly what `shelf login` gets (contract 5.7): setup-progress.write is not among them.
    const { key } = await createKey(server.db, account.id, {
      kind: "device",
      client: "shelf-cli",
      abilities: [...defaultAbilities.device],
    });
    const env: ShelfEnv = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl, SHELF_API_KEY: key });
    const product = await productWith(server, account.id, "manual");
    const refused = await shelf(["setup", String(product.id), "--done", "1"], env);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("needs a key with the setup-progress.write ability");
    expect(refused.stderr).toContain(`${server.baseUrl}/account/products/${product.id}`);
    expect(refused.stderr).toContain(`${server.baseUrl}/settings/api-keys`);
    const document = ErrorOutput.parse(
      JSON.parse((await shelf(["setup", String(product.id), "--done", "1", "--json"], env)).stdout),
    );
    expect(document.error).toMatchObject({
      code: "missing_api_key_ability",
      exit_code: 5,
      details: { ability: "setup-progress.write" },
    });
    // A key created with that ability ticked records the step.
    const { key: writer } = await createKey(server.db, account.id, {
      abilities: [...defaultAbilities.created, "setup-progress.write"],
    });
    const recorded = await shelf(["setup", String(product.id), "--done", "1", "--json"], {
      ...env,
      SHELF_API_KEY: writer,
    });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(json(SetupOutput, recorded)).toMatchObject({ completed_steps: [1] });
  });
});

describe("downloads that misbehave", () => {
  it("refuses a download longer than the plan says at once (exit 8), instead of fetching it again and again", async () => {
    const { account, env, product, bytes } = await managedRelease(40_000);
    let asked = 0;
    const answer = () => {
      asked++;
      return rawAnswer("200 OK", { "content-type": "application/octet-stream" }, Buffer.concat([bytes, bytes]));
    };
    const result = await installWhile({ answer }, product.id, env);
    expect(result.code, result.stderr).toBe(8);
    expect(json(ErrorOutput, result).error).toMatchObject({ code: "size_mismatch", exit_code: 8 });
    expect(result.stderr).toContain("longer than the 40.0 KB (40000 bytes) the service published");
    expect(asked).toBe(1);
    const downloads = path.join(env.XDG_DATA_HOME as string, "shelf", "downloads", String(product.id));
    expect(await fs.readdir(downloads)).toEqual([]);
    expect(await installs(server, account.id)).toEqual([]);
  });

  it("waits out a 429 of the download as Retry-After asks, saying how long", async () => {
    const { env, product, bytes } = await managedRelease(30_000);
    let limited = 0;
    const answer = () => (limited++ === 0 ? rawAnswer("429 Too Many Requests", { "retry-after": "1" }) : null);
    const result = await installWhile({ answer }, product.id, env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("rate limiting this client: waiting 1 s as it asks (Retry-After)");
    expect(limited).toBe(2);
    const output = json(InstallOutput, result);
    expect(await fs.readFile(path.join(output.installed_to as string, "data.bin"))).toEqual(bytes);
  });

  it("keeps resuming a download that is cut again and again as long as each attempt brings bytes", async () => {
    const { env, product, bytes } = await managedRelease(200_000);
    // Nine cuts, more than the six retries a download that gets nowhere is given.
    const cutsBefore = server.proxy.settings.cuts;
    const result = await installWhile({ cutAfter: 20_000, recut: 8 }, product.id, env);
    expect(result.code, result.stderr).toBe(0);
    expect(server.proxy.settings.cuts - cutsBefore).toBe(9);
    const output = json(InstallOutput, result);
    expect(await fs.readFile(path.join(output.installed_to as string, "data.bin"))).toEqual(bytes);
  });
});

describe("installing again, elsewhere and side by side", () => {
  it("checks --dir before downloading anything (exit 2)", async () => {
    const { account, env } = await user();
    const product = await productWith(server, account.id, "binary", { payload: { executable_name: "tool" } });
    await publish(server, product.id, "1.0.0", "tool", randomBytes(1000));
    const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "shelf-cli-dir-")), "a-file");
    await fs.writeFile(file, "not a folder");
    server.proxy.settings.ranges = [];
    const result = await shelf(["install", String(product.id), "--dir", file, "--json"], env);
    expect(result.code).toBe(2);
    expect(json(ErrorOutput, result).error.message).toBe(
      `--dir ${file} cannot take the install: it is a file, not a folder.`,
    );
    expect(server.proxy.settings.ranges).toEqual([]);
  });

  it("reinstalls the installed version without downloading it, keeps only the newest download, and follows the installed channel", async () => {
    const { account, env } = await user();
    const product = await productWith(server, account.id, "managed-directory");
    await publish(server, product.id, "1.0.0", "app.bin", randomBytes(1000));
    await publish(server, product.id, "1.1.0-dev.1", "app.bin", randomBytes(1000));
    await server.db
      .update(schema.releases)
      .set({ channel: "dev" })
      .where(and(eq(schema.releases.productId, product.id), eq(schema.releases.version, "1.1.0-dev.1")));
    expect(json(InstallOutput, await shelf(["install", String(product.id), "--json"], env)).version).toBe("1.0.0");
    const dev = json(InstallOutput, await shelf(["install", String(product.id), "--channel", "dev", "--json"], env));
    expect(dev.version).toBe("1.1.0-dev.1");
    const downloads = path.join(env.XDG_DATA_HOME as string, "shelf", "downloads", String(product.id));
    // The older version's file is gone: only the installed one's stays.
    expect(await fs.readdir(downloads)).toEqual([path.basename(dev.file)]);

    server.proxy.settings.ranges = [];
    const again = await shelf(["install", String(product.id), "--json"], env);
    expect(again.code, again.stderr).toBe(0);
    // No --channel: the dev channel it came from, not stable's older 1.0.0.
    expect(again.stderr).toContain("Following the dev channel");
    expect(json(InstallOutput, again)).toMatchObject({ version: "1.1.0-dev.1", channel: "dev" });
    expect(again.stderr).toContain("is already downloaded here (sha256 verified): no download needed.");
    expect(server.proxy.settings.ranges).toEqual([]);

    const stable = await shelf(["install", String(product.id), "--channel", "stable", "--json"], env);
    expect(json(InstallOutput, stable).version).toBe("1.0.0");
    expect(stable.stderr).toContain("Note: 1.0.0 is older than the installed 1.1.0-dev.1");
  });

  it("refuses a second install of the same product while the first runs, and says when the binary's folder is not on PATH", async () => {
    const { account, env } = await user();
    const product = await productWith(server, account.id, "binary", { payload: { executable_name: "slow-tool" } });
    const bytes = randomBytes(100_000);
    await publish(server, product.id, "1.0.0", "slow-tool", bytes);
    // The first install stalls halfway through its download, holding its lock.
    server.proxy.settings.cutAfter = 50_000;
    server.proxy.settings.stallMs = 5_000;
    const data = path.join(env.XDG_DATA_HOME as string, "shelf");
    const lock = path.join(data, "downloads", `${product.id}.lock`);
    const first = startShelf(["install", String(product.id)], env);
    try {
      while (!(await exists(lock))) await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await shelf(["install", String(product.id), "--json"], env);
      expect(second.code).toBe(1);
      expect(json(ErrorOutput, second).error).toMatchObject({
        code: "install_in_progress",
        details: { pid: first.pid },
      });
      expect(second.stderr).toContain(`Another shelf (process ${first.pid}) is installing ${product.name}`);
    } finally {
      // Killed outright, as a power cut would: its lock stays behind.
      process.kill(first.pid as number, "SIGKILL");
      await first.done;
      server.proxy.settings.stallMs = 0;
    }
    expect(await exists(lock)).toBe(true);
    const third = await shelf(["install", String(product.id), "--json"], env);
    expect(third.code, third.stderr).toBe(0);
    const bin = path.join(data, "bin");
    expect(json(InstallOutput, third).installed_to).toBe(path.join(bin, "slow-tool"));
    expect(await fs.readFile(path.join(bin, "slow-tool"))).toEqual(bytes);
    expect(third.stderr).toContain(`${bin} is not on your PATH`);
    expect(await exists(lock)).toBe(false);
    const onPath = await shelf(["install", String(product.id)], { ...env, PATH: `${bin}:${process.env.PATH}` });
    expect(onPath.code, onPath.stderr).toBe(0);
    expect(onPath.stderr).not.toContain("is not on your PATH");
  });

  it("quotes the unpacking tool's reason when a published archive is not one", async () => {
    const { account, env } = await user();
    const product = await productWith(server, account.id, "managed-directory");
    await publish(server, product.id, "1.0.0", "pantry.zip", randomBytes(5000));
    const result = await shelf(["install", String(product.id), "--json"], env);
    expect(result.code).toBe(1);
    const error = json(ErrorOutput, result).error;
    expect(error.code).toBe("unpack_failed");
    expect(error.message).toMatch(
      /^The archive pantry\.zip could not be unpacked: unzip says ".*End-of-central-directory signature not found/,
    );
    expect(error.hint).not.toContain("installed");
  });

  it("names a corrupt file of its own by its path instead of failing as a crash", async () => {
    const { env } = await user();
    const config = path.join(env.XDG_CONFIG_HOME as string, "shelf", "config.json");
    await fs.mkdir(path.dirname(config), { recursive: true });
    await fs.writeFile(config, '{"base_url": ');
    const result = await shelf(["library", "--json"], env);
    expect(result.code).toBe(1);
    expect(json(ErrorOutput, result).error).toMatchObject({ code: "corrupt_file", details: { file: config } });
    expect(result.stderr).toContain(`Error: ${config} is not valid JSON`);
    expect(result.stderr).not.toContain("unexpectedly");
  });
});
