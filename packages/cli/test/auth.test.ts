import fs from "node:fs/promises";
import path from "node:path";
import { defaultAbilities } from "@shelf/api";
import { createAccount, createAccountWithKey, createKey, signedInCaller } from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthStatusOutput, ErrorOutput, LoginOutput, LogoutOutput, WhoamiOutput } from "../src/output";
import { makeHome, type ShelfEnv, type ShelfServer, shelf, shelfEnv, startServer, startShelf } from "./harness";

let server: ShelfServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

/** Runs `shelf login`, approving (or denying) its code through the service the device page calls. */
async function loginAs(accountId: number, env: ShelfEnv, decision: "approve" | "deny" = "approve") {
  let decided = false;
  const { caller } = await signedInCaller(server.db, accountId);
  let approval: Promise<unknown> = Promise.resolve();
  const run = startShelf(["login", "--json"], env, (stderr) => {
    const code = /one-time code: ([A-Z0-9-]+)/.exec(stderr)?.[1];
    if (code && !decided) {
      decided = true;
      approval = caller.deviceSignIn.decide({ user_code: code, decision });
    }
  });
  const result = await run.done;
  await approval;
  expect(decided).toBe(true);
  return result;
}

async function liveKeys(accountId: number) {
  const rows = await server.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, accountId));
  return rows.filter((row) => row.revokedAt === null);
}

describe("shelf login, whoami, auth status and logout", () => {
  it("signs in by device sign-in, keeps the key in a 0600 file without a keychain, and never prints it", async () => {
    const account = await createAccount(server.db);
    const home = await makeHome();
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl });
    const login = await loginAs(account.id, env);
    expect(login.code, login.stderr).toBe(0);
    const document = LoginOutput.parse(JSON.parse(login.stdout));
    expect(document.account.email).toBe(account.email);
    // No session bus reaches this run (keychain.test.ts has one): the key went to the file, readable by its owner only.
    expect(document.storage).toBe("file");
    const file = document.credentials_file as string;
    expect(file).toBe(path.join(home, ".config", "shelf", "credentials.json"));
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const key = JSON.parse(await fs.readFile(file, "utf8"))[server.baseUrl].key as string;
    expect(key).toMatch(/^shelf_/);
    expect(login.stdout).not.toContain(key);
    expect(login.stderr).not.toContain(key);
    const [issued] = await liveKeys(account.id);
    expect(issued?.kind).toBe("device");

    const whoami = await shelf(["whoami", "--json"], env);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(WhoamiOutput.parse(JSON.parse(whoami.stdout))).toMatchObject({
      account: { id: account.id, email: account.email },
      key_source: "file",
    });
    const status = await shelf(["auth", "status"], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("(mode 0600; no OS keychain answered)");
    expect(status.stdout).toContain("The service accepts the key.");
    expect(status.stdout).not.toContain(key);

    const logout = await shelf(["logout", "--json"], env);
    expect(logout.code, logout.stderr).toBe(0);
    expect(LogoutOutput.parse(JSON.parse(logout.stdout))).toMatchObject({
      revoked_on_server: true,
      deleted_locally: true,
      warning: null,
    });
    // Gone from the server and from the machine.
    expect(await liveKeys(account.id)).toEqual([]);
    await expect(fs.stat(file)).rejects.toThrow();
    const after = await shelf(["whoami", "--json"], env);
    expect(after.code).toBe(4);
    expect(ErrorOutput.parse(JSON.parse(after.stdout)).error.code).toBe("missing_api_key");
    const afterStatus = AuthStatusOutput.parse(JSON.parse((await shelf(["auth", "status", "--json"], env)).stdout));
    expect(afterStatus).toMatchObject({ signed_in: false, key_source: null, valid: null });
  });

  it("ends a denied sign-in with exit 4 and stores nothing", async () => {
    const account = await createAccount(server.db);
    const home = await makeHome();
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl });
    const login = await loginAs(account.id, env, "deny");
    expect(login.code).toBe(4);
    expect(ErrorOutput.parse(JSON.parse(login.stdout)).error.code).toBe("access_denied");
    expect(login.stderr).toContain("The sign-in was denied");
    await expect(fs.stat(path.join(home, ".config", "shelf", "credentials.json"))).rejects.toThrow();
    expect(await liveKeys(account.id)).toEqual([]);
  });

  it("deletes the key locally with a warning when the service cannot be reached at logout", async () => {
    const account = await createAccount(server.db);
    const home = await makeHome();
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl });
    expect((await loginAs(account.id, env)).code).toBe(0);
    // The same service as far as the stored key goes, but nothing listens there now.
    const config = path.join(home, ".config", "shelf");
    const credentials = JSON.parse(await fs.readFile(path.join(config, "credentials.json"), "utf8"));
    const deadUrl = "http://127.0.0.1:9";
    await fs.writeFile(
      path.join(config, "credentials.json"),
      JSON.stringify({ [deadUrl]: credentials[server.baseUrl] }),
      { mode: 0o600 },
    );
    const logout = await shelf(["logout", "--json", "--base-url", deadUrl], env);
    expect(logout.code, logout.stderr).toBe(0);
    const document = LogoutOutput.parse(JSON.parse(logout.stdout));
    expect(document).toMatchObject({ revoked_on_server: false, deleted_locally: true });
    expect(document.warning).toContain("could not be revoked");
    expect(logout.stderr).toContain("Warning:");
    await expect(fs.stat(path.join(config, "credentials.json"))).rejects.toThrow();
    // The key still works on the server: the warning told the person to revoke it there.
    expect(await liveKeys(account.id)).toHaveLength(1);
  });

  it("lets SHELF_API_KEY win over a stored key and refuses to log it out", async () => {
    const home = await makeHome();
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl, SHELF_API_KEY: "shelf_notarealkeynotarealkey0000" });
    const status = AuthStatusOutput.parse(JSON.parse((await shelf(["auth", "status", "--json"], env)).stdout));
    expect(status).toMatchObject({ signed_in: true, key_source: "environment", valid: false });
    const whoami = await shelf(["whoami"], env);
    expect(whoami.code).toBe(4);
    expect(whoami.stderr).toContain("The service no longer accepts this key");
    expect(whoami.stderr).toContain("shelf login");
    expect((await shelf(["logout"], env)).code).toBe(2);
  });

  it("names the account of the key in use, and exits non-zero when it cannot act", async () => {
    const mine = await createAccount(server.db);
    const home = await makeHome();
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl });
    const notSignedIn = await shelf(["auth", "status", "--json"], env);
    expect(notSignedIn.code).toBe(4);
    expect(AuthStatusOutput.parse(JSON.parse(notSignedIn.stdout))).toMatchObject({ signed_in: false });

    expect((await loginAs(mine.id, env)).code).toBe(0);
    const signedIn = await shelf(["auth", "status", "--json"], env);
    expect(signedIn.code).toBe(0);
    expect(AuthStatusOutput.parse(JSON.parse(signedIn.stdout)).account_email).toBe(mine.email);

    // Someone else's key in SHELF_API_KEY: the status is about that key and its account, not the stored one's.
    const { account: theirs, key } = await createAccountWithKey(server.db, { abilities: [...defaultAbilities.device] });
    const borrowed = await shelf(["auth", "status"], { ...env, SHELF_API_KEY: key });
    expect(borrowed.code).toBe(0);
    expect(borrowed.stdout).toContain(
      `Signed in as ${theirs.email}; the key is in the SHELF_API_KEY environment variable.`,
    );
    expect(borrowed.stdout).not.toContain(mine.email);
    // A key that may not say whose it is works, its account unnamed rather than guessed.
    const { key: created } = await createAccountWithKey(server.db, { abilities: [...defaultAbilities.created] });
    const unnamed = AuthStatusOutput.parse(
      JSON.parse((await shelf(["auth", "status", "--json"], { ...env, SHELF_API_KEY: created })).stdout),
    );
    expect(unnamed).toMatchObject({ valid: true, account_email: null, key_source: "environment" });
    // A revoked key, and a service that cannot be asked: not a success either.
    const refused = await shelf(["auth", "status"], { ...env, SHELF_API_KEY: "shelf_notarealkeynotarealkey0000" });
    expect(refused.code).toBe(4);
    const away = await shelf(["auth", "status", "--json", "--base-url", "http://127.0.0.1:9"], {
      ...env,
      SHELF_API_KEY: key,
    });
    expect(away.code).toBe(3);
    expect(AuthStatusOutput.parse(JSON.parse(away.stdout)).valid).toBeNull();
  });

  it("revokes the key it held before when signing in again, and names the address keys are kept for", async () => {
    const account = await createAccount(server.db);
    const home = await makeHome();
    const env = shelfEnv(home, { SHELF_BASE_URL: server.baseUrl });
    expect((await loginAs(account.id, env)).code).toBe(0);
    const [first] = await liveKeys(account.id);
    const again = await loginAs(account.id, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("The key this machine held before was revoked.");
    const live = await liveKeys(account.id);
    expect(live).toHaveLength(1);
    expect(live[0]?.id).not.toBe(first?.id);

    // The same server under another name: keys are kept per address, and the client says where it has one.
    const otherName = server.baseUrl.replace("127.0.0.1", "localhost");
    const elsewhere = await shelf(["whoami", "--json", "--base-url", otherName], env);
    expect(elsewhere.code).toBe(4);
    expect(ErrorOutput.parse(JSON.parse(elsewhere.stdout)).error.hint).toContain(
      `Keys are kept per service address, and this machine has one for ${server.baseUrl} (${account.email}): use --base-url ${server.baseUrl}`,
    );
    const status = await shelf(["auth", "status", "--base-url", otherName], env);
    expect(status.stdout).toContain(`Not signed in at ${otherName}.`);
    expect(status.stdout).toContain(`this machine has one for ${server.baseUrl}`);
  });

  it("exits at once saying what to do when the page cannot approve for want of a key slot (exit 7)", async () => {
    const { account } = await createAccountWithKey(server.db);
    for (let made = 1; made < 3; made++) await createKey(server.db, account.id);
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl });
    const { caller } = await signedInCaller(server.db, account.id);
    let refusal: Promise<unknown> | undefined;
    const run = startShelf(["login", "--json"], env, (stderr) => {
      const code = /one-time code: ([A-Z0-9-]+)/.exec(stderr)?.[1];
      if (code && !refusal) {
        refusal = caller.deviceSignIn.decide({ user_code: code, decision: "approve" }).catch((error) => error);
      }
    });
    const result = await run.done;
    expect(await refusal).toMatchObject({ code: "CONFLICT" });
    expect(result.code).toBe(7);
    const error = ErrorOutput.parse(JSON.parse(result.stdout)).error;
    expect(error.code).toBe("api_key_limit_reached");
    expect(result.stderr).toContain("The sign-in failed on the web page: every account-wide key slot");
    expect(error.hint).toBe(
      `Revoke a key you no longer use at ${server.baseUrl}/settings/api-keys, then run \`shelf login\` again.`,
    );
    expect((await liveKeys(account.id)).map((key) => key.kind)).toEqual(["created", "created", "created"]);
  });

  it("prints one JSON document for usage errors too, with --json", async () => {
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl });
    for (const args of [
      ["no-such-command"],
      ["install"],
      ["install", "x", "--channel", "nightly"],
      ["library", "--nope"],
    ]) {
      const result = await shelf([...args, "--json"], env);
      expect(result.code, args.join(" ")).toBe(2);
      const document = ErrorOutput.parse(JSON.parse(result.stdout));
      expect(document.error).toMatchObject({ code: "usage", exit_code: 2 });
      expect(result.stderr).toContain(document.error.message);
    }
    // A bad setting in the environment is the person's to fix: a usage error, not a crash.
    const badSetting = await shelf(["library", "--json"], { ...env, SHELF_KEYRING: "maybe" });
    expect(badSetting.code).toBe(2);
    expect(ErrorOutput.parse(JSON.parse(badSetting.stdout)).error.message).toContain("SHELF_KEYRING");
    expect(badSetting.stderr).not.toContain("unexpectedly");
    const completion = await shelf(["completion", "tcsh", "--json"], env);
    expect(completion.code).toBe(2);
    expect(ErrorOutput.parse(JSON.parse(completion.stdout)).error.code).toBe("usage");
  });

  it("uses documented exit codes for usage errors and an unreachable service", async () => {
    const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: server.baseUrl });
    expect((await shelf(["no-such-command"], env)).code).toBe(2);
    expect((await shelf(["install"], env)).code).toBe(2);
    expect((await shelf(["install", "x", "--channel", "nightly"], env)).code).toBe(2);
    const help = await shelf(["--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes:");
    const unreachable = await shelf(["login", "--json", "--base-url", "http://127.0.0.1:9"], env);
    expect(unreachable.code).toBe(3);
    expect(ErrorOutput.parse(JSON.parse(unreachable.stdout)).error.code).toBe("unreachable");
  });
});
