import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { accountAbilities, publishing } from "@shelf/api";
import {
  createAccount,
  createAccountWithKey,
  createProduct,
  grantEntitlement,
  signedInCaller,
} from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeHome, type ShelfServer, shelfBin, shelfEnv, startServer } from "./harness";

const run = promisify(execFile);
/** What a person saw, kept as text: `packages/cli/test-results/terminal/`. */
const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const artifacts = path.join(cliDir, "test-results", "terminal");
const socket = `shelf-cli-test-${process.pid}`;
let server: ShelfServer;

beforeAll(async () => {
  server = await startServer();
  await fs.mkdir(artifacts, { recursive: true });
});
afterAll(async () => {
  await run("tmux", ["-L", socket, "kill-server"]).catch(() => {});
  await server?.close();
});

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * Starts `shelf args` in a tmux pane of its own, a real terminal of 100 by 30, with the given environment. With
 * `jobControl`, the pane's shell runs it as a job of its own, as an interactive shell does: only then can Ctrl-Z stop
 * it (the kernel ignores Ctrl-Z for the pane's first process group, which nothing could resume).
 */
async function inTmux(
  name: string,
  args: string[],
  env: Record<string, string | undefined>,
  options: { jobControl?: boolean } = {},
) {
  const assignments = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${quote(value)}`);
  // The pane's shell outlives a Ctrl-C or Ctrl-\ meant for shelf (a handler, not an ignore: shelf gets the defaults).
  const command = `${options.jobControl ? "set -m; " : ""}trap : INT QUIT; env -i ${assignments.join(" ")} TERM=xterm-256color ${quote(process.execPath)} ${quote(shelfBin)} ${args.map(quote).join(" ")}; echo "[exit $?]"; sleep 600`;
  await run("tmux", ["-L", socket, "new-session", "-d", "-s", name, "-x", "100", "-y", "30", command]);
}

const capture = async (name: string) => (await run("tmux", ["-L", socket, "capture-pane", "-p", "-t", name])).stdout;

/** The pane once `pattern` shows on it (polled), saved as an artifact. */
async function waitFor(name: string, pattern: RegExp, artifact: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const screen = await capture(name);
    if (pattern.test(screen)) {
      await fs.writeFile(path.join(artifacts, `${artifact}.txt`), screen);
      return screen;
    }
    if (Date.now() > deadline) throw new Error(`${pattern} never showed; the pane:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A key of an account entitled to a new product whose one release is a 3 MB file. */
async function entitledTo(name: string, version: string, filename: string) {
  const { account, key } = await createAccountWithKey(server.db, { abilities: [...accountAbilities] });
  const product = await createProduct(server.db, { name });
  await grantEntitlement(server.db, account.id, product.id);
  await publishing.publishRelease(
    server.db,
    server.delivery,
    { productId: product.id, version, filename },
    Readable.from([randomBytes(3_000_000)]),
  );
  return { product, key };
}

describe("shelf as a person sees it in a terminal", () => {
  it("shows the sign-in code and a spinner while it waits, then who signed in", async () => {
    const account = await createAccount(server.db);
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl });
    await inTmux("login", ["login", "--no-browser"], env);
    const waiting = await waitFor("login", /Waiting for approval in the browser/, "login-waiting");
    const code = /one-time code: ([A-Z0-9-]+)/.exec(waiting)?.[1] as string;
    expect(waiting).toContain(`Then open ${server.baseUrl}/device and enter it`);
    const { caller } = await signedInCaller(server.db, account.id);
    await caller.deviceSignIn.decide({ user_code: code, decision: "approve" });
    const done = await waitFor("login", /\[exit \d+\]/, "login-done");
    expect(done).toContain(`Signed in as ${account.email}.`);
    expect(done).toContain("[exit 0]");
    expect(done).not.toMatch(/shelf_[A-Za-z0-9]{10,}/);
  });

  it("shows the download's progress and its verification", async () => {
    const { product, key } = await entitledTo("Terminal Demo", "1.2.0", "demo.bin");
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl, SHELF_API_KEY: key });
    server.proxy.settings.cutAfter = 1_000_000;
    await inTmux("install", ["install", String(product.id)], env);
    const done = await waitFor("install", /\[exit \d+\]/, "install");
    expect(done).toContain("Downloaded Terminal Demo 1.2.0 (3.0 MB, sha256 verified).");
    expect(done).toContain("The download was interrupted");
    expect(done).toContain("[exit 0]");
  });

  it("asks for what `report problem` needs, as a prompt", async () => {
    const { account, key } = await createAccountWithKey(server.db, { abilities: [...accountAbilities] });
    expect(account.id).toBeGreaterThan(0);
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl, SHELF_API_KEY: key });
    await inTmux("report", ["report", "problem"], env);
    await waitFor("report", /What went wrong, in one line\?/, "report-prompt-summary");
    await run("tmux", ["-L", socket, "send-keys", "-t", "report", "The icon is blurry", "Enter"]);
    await waitFor("report", /What did you do, and what happened\?/, "report-prompt-detail");
    await run("tmux", ["-L", socket, "send-keys", "-t", "report", "Opened it on a 4K screen", "Enter"]);
    const done = await waitFor("report", /\[exit \d+\]/, "report-done");
    expect(done).toMatch(/Reported: ticket #\d+/);
    expect(done).toContain("[exit 0]");
  });
});

describe("the daily newer-client hint", () => {
  it("names the newer shelf and the upgrade command on a terminal, at most once a day, never with --json or a pipe", async () => {
    const own = JSON.parse(await fs.readFile(path.join(cliDir, "package.json"), "utf8")).version as string;
    const newer = `${Number(own.split(".")[0]) + 1}.0.0`;
    // The service's own CLI product: the one with the slug shelf-cli, its versions published as releases.
    const cliProduct = await createProduct(server.db, { name: "shelf command-line client", slug: "shelf-cli" });
    await publishing.publishRelease(
      server.db,
      server.delivery,
      { productId: cliProduct.id, version: own, filename: "shelf.tgz" },
      Readable.from([randomBytes(100)]),
    );
    const home = await makeHome();
    // However loaded the machine, the command waits for the check's answer (a person's waits at most 1.5 s).
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl, SHELF_UPDATE_CHECK_WAIT_MS: "30000" });
    const stateFile = path.join(home, ".local", "share", "shelf", "update-check.json");
    const hint = `A newer shelf is available: ${own} → ${newer}. Upgrade: npm install -g @shelf/cli@latest`;

    // The same version as this client's: asked, nothing to say.
    await inTmux("hint-same", ["auth", "status"], env);
    expect(await waitFor("hint-same", /\[exit \d+\]/, "hint-same-version")).not.toContain("A newer shelf");
    const first = JSON.parse(await fs.readFile(stateFile, "utf8"));
    expect(first).toMatchObject({ base_url: server.baseUrl, latest: own });

    // A newer release, but the service was asked less than a day ago: not asked again.
    await publishing.publishRelease(
      server.db,
      server.delivery,
      { productId: cliProduct.id, version: newer, filename: "shelf.tgz" },
      Readable.from([randomBytes(100)]),
    );
    await inTmux("hint-soon", ["auth", "status"], env);
    expect(await waitFor("hint-soon", /\[exit \d+\]/, "hint-within-a-day")).not.toContain("A newer shelf");
    expect(JSON.parse(await fs.readFile(stateFile, "utf8"))).toEqual(first);

    // A day later: the hint, once.
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    await fs.writeFile(stateFile, JSON.stringify({ ...first, checked_at: dayAgo }));
    await inTmux("hint-shown", ["auth", "status"], env);
    const shown = await waitFor("hint-shown", /\[exit \d+\]/, "hint-shown");
    expect(shown).toContain(hint);
    // Not signed in: `auth status` says so with exit 4, and the hint still follows it.
    expect(shown).toContain("[exit 4]");
    expect(JSON.parse(await fs.readFile(stateFile, "utf8"))).toMatchObject({ latest: newer });
    await inTmux("hint-again", ["auth", "status"], env);
    expect(await waitFor("hint-again", /\[exit \d+\]/, "hint-not-again")).not.toContain("A newer shelf");

    // With --json on a terminal, or with stdout in a pipe: no hint, and the service is not even asked.
    await fs.writeFile(stateFile, JSON.stringify({ ...first, checked_at: dayAgo }));
    await inTmux("hint-json", ["auth", "status", "--json"], env);
    const json = await waitFor("hint-json", /\[exit \d+\]/, "hint-json");
    expect(json).not.toContain("A newer shelf");
    expect(json).toContain('"signed_in": false');
    // Not signed in, so exit 4: execFile's error carries the output.
    const piped: { stdout: string; stderr: string } = await run(process.execPath, [shelfBin, "auth", "status"], {
      env: env as NodeJS.ProcessEnv,
    }).catch((error) => error);
    expect(piped.stdout + piped.stderr).not.toContain("A newer shelf");
    expect(JSON.parse(await fs.readFile(stateFile, "utf8")).checked_at).toBe(dayAgo);
    // SHELF_NO_UPDATE_NOTIFIER turns it off on a terminal too.
    await inTmux("hint-off", ["auth", "status"], { ...env, SHELF_NO_UPDATE_NOTIFIER: "1" });
    expect(await waitFor("hint-off", /\[exit \d+\]/, "hint-off")).not.toContain("A newer shelf");
    expect(JSON.parse(await fs.readFile(stateFile, "utf8")).checked_at).toBe(dayAgo);
  });
});

describe("Ctrl-C, as a person presses it", () => {
  const keys = (name: string, ...sent: string[]) => run("tmux", ["-L", socket, "send-keys", "-t", name, ...sent]);

  it("stops a download under its progress line, keeps the partial file, says so and exits 130; the next install resumes", async () => {
    const { product, key } = await entitledTo("Interrupted Demo", "1.0.0", "big.bin");
    const home = await makeHome();
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl, SHELF_API_KEY: key });
    const partial = path.join(home, ".local", "share", "shelf", "downloads", String(product.id), "big.bin.partial");
    // A third of the file, then the line goes quiet: the download is under way when the key is pressed.
    server.proxy.settings.cutAfter = 1_000_000;
    server.proxy.settings.stallMs = 8_000;
    try {
      await inTmux("ctrl-c-install", ["install", String(product.id)], env);
      await waitFor("ctrl-c-install", /Downloading Interrupted Demo 1\.0\.0/, "ctrl-c-install-running");
      while ((await fs.stat(partial).catch(() => null))?.size !== 1_000_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await keys("ctrl-c-install", "C-c");
      const done = await waitFor("ctrl-c-install", /\[exit \d+\]/, "ctrl-c-install-done");
      expect(done).toContain("1.0 MB of 3.0 MB downloaded, kept in");
      expect(done).toContain("run the command again to resume.");
      expect(done).toContain("Cancelled.");
      expect(done).toContain("[exit 130]");
      expect(done).not.toContain("unexpectedly");
    } finally {
      server.proxy.settings.stallMs = 0;
    }
    expect((await fs.stat(partial)).size).toBe(1_000_000);
    const resumed = await run(process.execPath, [shelfBin, "install", String(product.id), "--json"], {
      env: env as NodeJS.ProcessEnv,
    });
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumed: true, version: "1.0.0" });
  });

  it("ends a sign-in that waits with Ctrl-C (exit 130) or Ctrl-\\ (SIGQUIT)", async () => {
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl });
    await inTmux("ctrl-c-login", ["login", "--no-browser"], env);
    await waitFor("ctrl-c-login", /Waiting for approval in the browser/, "ctrl-c-login-waiting");
    await keys("ctrl-c-login", "C-c");
    const done = await waitFor("ctrl-c-login", /\[exit \d+\]/, "ctrl-c-login-done");
    expect(done).toContain("Cancelled.");
    expect(done).toContain("[exit 130]");

    await inTmux("quit-login", ["login", "--no-browser"], env);
    await waitFor("quit-login", /Waiting for approval in the browser/, "quit-login-waiting");
    await keys("quit-login", "C-\\");
    // 128 + 3: the shell's way of saying SIGQUIT ended it.
    expect(await waitFor("quit-login", /\[exit \d+\]/, "quit-login-done")).toContain("[exit 131]");
  });

  it("lets Ctrl-Z stop a sign-in that waits, for the shell to resume", async () => {
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl });
    await inTmux("suspend-login", ["login", "--no-browser"], env, { jobControl: true });
    await waitFor("suspend-login", /Waiting for approval in the browser/, "suspend-login-waiting");
    await keys("suspend-login", "C-z");
    // 128 + SIGTSTP (20): the shell saw its job stop, as it does before offering `fg`.
    expect(await waitFor("suspend-login", /\[exit \d+\]/, "suspend-login-stopped")).toContain("[exit 148]");
    const shell = Number(
      (await run("tmux", ["-L", socket, "list-panes", "-t", "suspend-login", "-F", "#{pane_pid}"])).stdout,
    );
    const client = Number((await run("pgrep", ["-P", String(shell), "-f", "shelf.js"])).stdout.trim());
    expect((await run("ps", ["-o", "stat=", "-p", String(client)])).stdout.trim()).toMatch(/^T/);
    // Resumed, it is still the client it was: Ctrl-C (here its signal) ends it as usual.
    process.kill(client, "SIGCONT");
    process.kill(client, "SIGINT");
    while (
      await run("ps", ["-p", String(client)]).then(
        () => true,
        () => false,
      )
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it("says Cancelled. at a prompt (exit 130), and never sends it as a crash", async () => {
    const { key } = await createAccountWithKey(server.db, { abilities: [...accountAbilities] });
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl, SHELF_API_KEY: key });
    await run(process.execPath, [shelfBin, "report", "crashes", "on"], { env: env as NodeJS.ProcessEnv });
    const reportsBefore = (await server.db.select().from(schema.errorReports)).length;
    await inTmux("ctrl-c-prompt", ["report", "problem"], env);
    await waitFor("ctrl-c-prompt", /What went wrong, in one line\?/, "ctrl-c-prompt-asking");
    await keys("ctrl-c-prompt", "C-c");
    const done = await waitFor("ctrl-c-prompt", /\[exit \d+\]/, "ctrl-c-prompt-done");
    expect(done).toContain("Cancelled.");
    expect(done).toContain("[exit 130]");
    expect(done).not.toContain("unexpectedly");
    expect(done).not.toContain("crash report");
    expect(await server.db.select().from(schema.errorReports)).toHaveLength(reportsBefore);
  });
});
