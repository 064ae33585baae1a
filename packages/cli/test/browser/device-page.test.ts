import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordSecret } from "@shelf/api/testing";
import { launchChromium, type RunningServer, startAppServer } from "@shelf/api/testing/apps";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../build.mjs";
import { LoginOutput, LogoutOutput, WhoamiOutput } from "../../src/output";
import { makeHome, shelf, shelfEnv, startShelf } from "../harness";

/**
 * `shelf login` as a person does it: the client runs as a child process against the web app's production build, and
 * the person (Chromium) signs up, opens the address the client printed, types the code it showed, and approves on
 * the real `/device` page. Runs in the vitest project `web`, which builds the web app once for its files.
 */

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../apps/web");
const PASSWORD = "correct horse battery staple";

let testDb: TestDatabase;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  await build();
  testDb = await createTestDatabase();
  server = await startAppServer({
    appDir: webDir,
    portSetting: "PORT",
    env: {
      DATABASE_URL: testDb.url,
      SHELF_RATE_LIMIT_PER_MINUTE: "1000",
      SHELF_RATE_LIMIT_NAMESPACE: `cli-device-${Date.now()}`,
    },
  });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await testDb?.drop();
});

describe("shelf login through the device page", () => {
  it("shows a code the person approves in the browser; the client then holds a working key, and logout revokes it", async () => {
    const context = await browser.newContext({ locale: "en-US", baseURL: server.url });
    const page = await context.newPage();
    const email = `cli-${Date.now()}@example.test`;
    await page.goto("/sign-up");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.locator("main").getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/account$/);

    const home = await makeHome();
    // No keychain in this run: the key goes to the 0600 file, whichever machine runs the test.
    const env = shelfEnv(home, { SHELF_BASE_URL: server.url, SHELF_KEYRING: "off" });
    let shown: { code: string; address: string } | undefined;
    let resolveShown: (value: { code: string; address: string }) => void = () => {};
    const codeShown = new Promise<{ code: string; address: string }>((resolve) => {
      resolveShown = resolve;
    });
    const login = startShelf(["login", "--json"], env, (stderr) => {
      const code = /one-time code: ([A-Z0-9-]+)/.exec(stderr)?.[1];
      const address = /Then open (\S+) and enter it/.exec(stderr)?.[1];
      if (code && address && !shown) {
        shown = { code, address };
        resolveShown(shown);
      }
    });
    const { code, address } = await Promise.race([
      codeShown,
      login.done.then((run) => Promise.reject(new Error(`shelf login ended first:\n${run.stderr}`))),
    ]);

    // The person opens the address the client printed and types the code by hand.
    const verification = new URL(address);
    expect(verification.pathname).toBe("/device");
    await page.goto(verification.pathname);
    await page.getByLabel("Code").fill(code);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Shelf command-line client asks to use your account" }).waitFor();
    expect(await page.locator("code.user-code").textContent()).toBe(code);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Device connected" }).waitFor();

    const done = await login.done;
    expect(done.code, done.stderr).toBe(0);
    const signedIn = LoginOutput.parse(JSON.parse(done.stdout));
    expect(signedIn).toMatchObject({ base_url: server.url, account: { email }, storage: "file" });
    expect(done.stderr).toContain(`Signed in as ${email}.`);
    const key = JSON.parse(await fs.readFile(signedIn.credentials_file as string, "utf8"))[server.url].key as string;
    recordSecret(key);
    expect(key.startsWith(signedIn.key_prefix)).toBe(true);
    expect(done.stdout + done.stderr + server.output()).not.toContain(key);

    const whoami = await shelf(["whoami", "--json"], env);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(WhoamiOutput.parse(JSON.parse(whoami.stdout))).toMatchObject({ account: { email }, key_source: "file" });

    // The key shows in the person's key list as a device sign-in key; logout revokes it on the service.
    await page.goto("/settings/api-keys");
    const row = page.locator("tr", { hasText: signedIn.key_prefix }).first();
    expect(await row.textContent()).toContain("Device sign-in (command-line client)");
    const logout = await shelf(["logout", "--json"], env);
    expect(logout.code, logout.stderr).toBe(0);
    expect(LogoutOutput.parse(JSON.parse(logout.stdout))).toMatchObject({ revoked_on_server: true });
    const after = await shelf(["whoami", "--json"], env);
    expect(after.code).toBe(4);
    await context.close();
  });
});
