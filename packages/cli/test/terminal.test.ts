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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeHome, type ShelfServer, shelfBin, shelfEnv, startServer } from "./harness";

const run = promisify(execFile);
/** What a person saw, kept as text: `packages/cli/test-results/terminal/`. */
const artifacts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "test-results", "terminal");
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

/** Starts `shelf args` in a tmux pane of its own, a real terminal of 100 by 30, with the given environment. */
async function inTmux(name: string, args: string[], env: Record<string, string | undefined>) {
  const assignments = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${quote(value)}`);
  const command = `env -i ${assignments.join(" ")} TERM=xterm-256color ${quote(process.execPath)} ${quote(shelfBin)} ${args.map(quote).join(" ")}; echo "[exit $?]"; sleep 600`;
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
    const { account, key } = await createAccountWithKey(server.db, { abilities: [...accountAbilities] });
    const product = await createProduct(server.db, { name: "Terminal Demo" });
    await grantEntitlement(server.db, account.id, product.id);
    await publishing.publishRelease(
      server.db,
      server.delivery,
      { productId: product.id, version: "1.2.0", filename: "demo.bin" },
      Readable.from([randomBytes(3_000_000)]),
    );
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
