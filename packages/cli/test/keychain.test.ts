import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { createAccount, signedInCaller } from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthStatusOutput, LoginOutput, LogoutOutput, WhoamiOutput } from "../src/output";
import { makeHome, type ShelfServer, shelf, shelfEnv, startServer, startShelf } from "./harness";

/**
 * `shelf login` where the machine has an OS keychain: a D-Bus session bus of the test's own with GNOME Keyring's
 * Secret Service on it, unlocked headless (scripts/ensure-test-deps.sh installs dbus, gnome-keyring and secret-tool).
 * The key must land in the keychain and nowhere on disk in the client's folders, and logout must remove it.
 */

const tools = ["dbus-daemon", "dbus-send", "gnome-keyring-daemon", "secret-tool"];
const missing = (
  await Promise.all(
    tools.map(
      (tool) =>
        new Promise<string | null>((resolve) =>
          execFile("sh", ["-c", `command -v ${tool}`], (error) => resolve(error ? tool : null)),
        ),
    ),
  )
).filter((tool): tool is string => tool !== null);

let server: ShelfServer;
let home: string;
let bus: ChildProcess | undefined;
let keyring: ChildProcess | undefined;
let busAddress: string;

/** Starts `command`; resolves once `ready` matches what it printed (stdout and stderr), or at once without `ready`. */
function startUntil(command: string, args: string[], env: NodeJS.ProcessEnv, ready?: RegExp, input?: string) {
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const started = new Promise<{ child: ChildProcess; output: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${output}`)), 20_000);
    const check = (chunk?: Buffer) => {
      output += chunk ?? "";
      if (!ready || ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
    child.on("spawn", () => check());
  });
  child.stdin?.end(input ?? "");
  return started;
}

/** Resolves once the Secret Service's name is owned on the bus (asked without activating anything). */
async function secretServiceUp(): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await new Promise<string>((resolve) =>
      execFile(
        "dbus-send",
        [
          "--session",
          "--print-reply",
          "--dest=org.freedesktop.DBus",
          "/org/freedesktop/DBus",
          "org.freedesktop.DBus.NameHasOwner",
          "string:org.freedesktop.secrets",
        ],
        { env: busEnv() },
        (_error, stdout) => resolve(stdout),
      ),
    );
    if (/boolean true/.test(answer)) return;
    if (Date.now() > deadline) throw new Error("GNOME Keyring never took the Secret Service's name on the bus");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The environment that reaches the test's session bus (and the keyring's files in the test's home). */
const busEnv = () =>
  ({
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_RUNTIME_DIR: home,
    DBUS_SESSION_BUS_ADDRESS: busAddress,
  }) as Record<string, string | undefined> as NodeJS.ProcessEnv;

/** What `secret-tool lookup` finds for the client's entry of `baseUrl` (null when there is none). */
function lookup(baseUrl: string): Promise<string | null> {
  return new Promise((resolve) =>
    execFile("secret-tool", ["lookup", "service", "shelf", "username", baseUrl], { env: busEnv() }, (error, stdout) =>
      resolve(error ? null : stdout),
    ),
  );
}

beforeAll(async () => {
  if (missing.length > 0) return;
  server = await startServer();
  home = await makeHome();
  const started = await startUntil(
    "dbus-daemon",
    ["--session", "--nofork", "--print-address=1"],
    { PATH: process.env.PATH, HOME: home } as Record<string, string | undefined> as NodeJS.ProcessEnv,
    /^unix:\S+\n/,
  );
  bus = started.child;
  busAddress = started.output.trim().split("\n")[0] as string;
  // The login keyring is created with (and unlocked by) the password on stdin, as a desktop session's PAM does.
  keyring = (
    await startUntil(
      "gnome-keyring-daemon",
      ["--foreground", "--unlock", "--components=secrets"],
      busEnv(),
      undefined,
      "a keyring password\n",
    )
  ).child;
  await secretServiceUp();
});

afterAll(async () => {
  keyring?.kill("SIGTERM");
  bus?.kill("SIGTERM");
  await server?.close();
});

describe.skipIf(missing.length > 0)(`shelf login with an OS keychain (needs ${tools.join(", ")})`, () => {
  it("keeps the key in the Secret Service, not in credentials.json; auth status says so; logout removes it", async () => {
    const account = await createAccount(server.db);
    const { caller } = await signedInCaller(server.db, account.id);
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl, DBUS_SESSION_BUS_ADDRESS: busAddress });
    let approval: Promise<unknown> | undefined;
    const login = await startShelf(["login", "--json"], env, (stderr) => {
      const code = /one-time code: ([A-Z0-9-]+)/.exec(stderr)?.[1];
      if (code && !approval) approval = caller.deviceSignIn.decide({ user_code: code, decision: "approve" });
    }).done;
    await approval;
    expect(login.code, login.stderr).toBe(0);
    expect(LoginOutput.parse(JSON.parse(login.stdout))).toMatchObject({ storage: "keychain", credentials_file: null });

    const stored = await lookup(server.baseUrl);
    expect(stored).toMatch(/^shelf_/);
    const key = stored as string;
    const [issued] = await server.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, account.id));
    expect(key.startsWith(issued?.prefix as string)).toBe(true);
    // Nothing of the key in the client's folders: no credentials.json, and the config names only where it is.
    const configDir = path.join(home, ".config", "shelf");
    await expect(fs.stat(path.join(configDir, "credentials.json"))).rejects.toThrow();
    for (const file of await fs.readdir(configDir, { recursive: true })) {
      const full = path.join(configDir, file);
      if ((await fs.stat(full)).isFile()) expect(await fs.readFile(full, "utf8")).not.toContain(key);
    }
    expect(login.stdout + login.stderr).not.toContain(key);

    const status = await shelf(["auth", "status"], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("the key is in the OS keychain.");
    expect(status.stdout).toContain("The service accepts the key.");
    const statusJson = AuthStatusOutput.parse(JSON.parse((await shelf(["auth", "status", "--json"], env)).stdout));
    expect(statusJson).toMatchObject({ signed_in: true, key_source: "keychain", credentials_file: null, valid: true });
    const whoami = await shelf(["whoami", "--json"], env);
    expect(WhoamiOutput.parse(JSON.parse(whoami.stdout))).toMatchObject({ key_source: "keychain" });

    const logout = await shelf(["logout", "--json"], env);
    expect(logout.code, logout.stderr).toBe(0);
    expect(LogoutOutput.parse(JSON.parse(logout.stdout))).toMatchObject({
      revoked_on_server: true,
      deleted_locally: true,
    });
    expect(await lookup(server.baseUrl)).toBeNull();
    const [revoked] = await server.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, account.id));
    expect(revoked?.revokedAt).not.toBeNull();
    expect((await shelf(["whoami", "--json"], env)).code).toBe(4);
  });
});
