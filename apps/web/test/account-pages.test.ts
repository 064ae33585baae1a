import { createHash, randomBytes } from "node:crypto";
import { recordSecret } from "@shelf/api/testing";
import { conformanceAuthorization, freePort } from "@shelf/api/testing/conformance";
import { CONTRACT_DEVICE_ABILITIES } from "@shelf/api/testing/contract";
import type { TestDatabase } from "@shelf/db/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCli } from "./admin-cli";
import {
  expectNoSeriousViolations,
  openWebPageSuite,
  shots,
  signIn as signInAs,
  type WebPageSuite,
} from "./page-suite";
import { type RunningServer, startServer } from "./server";

/**
 * The account pages in Debian's Chromium against the production build: signing up and in, keys created, shown once,
 * used and revoked, the slot counter, device sign-in with a script playing the client, sign-out ending sessions,
 * security headers, and axe-core on every page in English and Korean (screenshots kept in test-results/pages).
 */

let testDb: TestDatabase;
let sql: postgres.Sql;
let server: RunningServer;
let browser: Browser;
let dataDir: string;
const admin = adminCli(() => ({ databaseUrl: testDb.url, dataDir }));
let productId: number;

const PASSWORD = "correct horse battery staple";

let suite: WebPageSuite | undefined;

beforeAll(async () => {
  suite = await openWebPageSuite({
    name: "pages",
    prepare: async (opened) => {
      ({ testDb, dataDir } = opened);
      productId = (await admin("product:create", "--name", "Seat Saver", "--price-cents", "2900")).id;
      await admin("product:update", "--id", String(productId), "--manual-steps", '["Download","Open","Sign in"]');
    },
  });
  ({ testDb, sql, dataDir, server, browser } = suite);
}, 240_000);

afterAll(() => suite?.close());

let emails = 0;
function newEmail(): string {
  emails += 1;
  return `person${emails}-${Date.now()}@example.test`;
}

async function newContext(locale = "en-US"): Promise<BrowserContext> {
  return browser.newContext({ locale, baseURL: server.url });
}

/** Signs up through the page, in whatever language it speaks, and lands on the library. */
async function signUp(page: Page, email: string): Promise<void> {
  await page.goto("/sign-up");
  await page.locator("main input[name=email]").fill(email);
  await page.locator("main input[name=password]").fill(PASSWORD);
  await page.locator("main form button[type=submit]").click();
  await page.waitForURL(/\/account$/);
}

function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  return signInAs(page, email, password);
}

async function api(pathname: string, key: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${pathname}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
}

/** The device client's side of device sign-in: form-encoded posts, as RFC 8628 clients send them. */
async function deviceEndpoint(pathname: string, fields: Record<string, string>) {
  const response = await fetch(`${server.url}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** Creates a key through the form and returns the plain key the page shows once. */
async function createKey(page: Page, name: string): Promise<string> {
  await page.goto("/settings/api-keys");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByLabel("The new key");
  await shown.waitFor();
  const key = await shown.inputValue();
  recordSecret(key);
  return key;
}

describe("keys in the browser", () => {
  it("signs up, creates a key shown once, uses it, revokes it and sees the next call refused", async () => {
    const context = await newContext();
    const page = await context.newPage();
    const email = newEmail();
    await signUp(page, email);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your library");

    const key = await createKey(page, "Build server");
    expect(key).toMatch(/^shelf_[A-Za-z0-9]{32}$/);
    await expect(page.getByText("this is the only time it is shown", { exact: false }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole("button", { name: "Copy" }).isVisible()).resolves.toBe(true);
    // Each ability is offered with its words from the abilities table.
    expect(await page.locator(".checks").getByText("read orders, invoices and payment methods").isVisible()).toBe(true);
    // The defaults of contract 5.7 were ticked.
    const row = page.getByRole("row", { name: /Build server/ });
    expect(await row.locator("code").allTextContents()).toEqual([
      `${key.slice(0, 14)}…`,
      "products.read",
      "mcp.read",
      "device.install",
    ]);

    // Once only: a reload shows the prefix, never the key.
    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.content()).toContain(key.slice(0, 14));

    expect((await api("/api/library", key)).status).toBe(200);

    await page
      .getByRole("row", { name: /Build server/ })
      .getByRole("button", { name: "Revoke" })
      .click();
    const dialog = page.getByRole("dialog");
    expect(await dialog.getByRole("heading").textContent()).toBe("Revoke Build server?");
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("No key yet.").waitFor();
    const refused = await api("/api/library", key);
    expect(refused.status).toBe(401);

    expect(server.output()).not.toContain(key);
    expect(server.output()).not.toContain(PASSWORD);
    await context.close();
  });

  it("counts the free slots down to a full scope at 3 keys and offers no fourth", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, newEmail());
    await page.goto("/settings/api-keys");
    expect(await page.getByTestId("slots-account").textContent()).toContain("3 of 3 free");
    for (const name of ["one", "two"]) await createKey(page, name);
    await page.reload();
    expect(await page.getByTestId("slots-account").textContent()).toContain("1 of 3 free");
    await createKey(page, "three");
    await page.reload();
    expect(await page.getByTestId("slots-account").textContent()).toContain("Full (3 of 3)");
    const accountWide = page.getByLabel("Scope").locator("option[value=account]");
    expect(await accountWide.isDisabled()).toBe(true);
    await context.close();
  });

  it("scopes a key to a product of the library, and the key sees only that product", async () => {
    const context = await newContext();
    const page = await context.newPage();
    const email = newEmail();
    await signUp(page, email);
    await admin("entitlement:grant", "--email", email, "--product", String(productId));
    await page.goto("/settings/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("Seat Saver only");
    await page.getByLabel("Scope").selectOption(String(productId));
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.getByLabel("The new key").inputValue();
    recordSecret(key);
    const library = await api("/api/library", key);
    expect(library.body.items.map((item: { product: { id: number } }) => item.product.id)).toEqual([productId]);
    await page.reload();
    expect(await page.getByTestId(`slots-${productId}`).textContent()).toContain("2 of 3 free");
    await context.close();
  });

  it("makes one key from three quick presses of Create key, and shows that key", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, newEmail());
    await page.goto("/settings/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("Pressed thrice");
    // Three clicks in one task: no render can come between them, so the page must drop the second and third itself.
    await page.evaluate(() => {
      const button = [...document.querySelectorAll("main button")].find((b) => b.textContent === "Create key");
      for (let press = 0; press < 3; press++) (button as HTMLButtonElement).click();
    });
    const shown = page.getByLabel("The new key");
    await shown.waitFor();
    const key = await shown.inputValue();
    recordSecret(key);
    await page.getByRole("button", { name: "Create key" }).waitFor();
    // The key on screen is the one key made.
    expect(await page.getByLabel("The new key").inputValue()).toBe(key);
    await page.reload();
    expect(await page.getByRole("row", { name: /Pressed thrice/ }).count()).toBe(1);
    expect(await page.getByTestId("slots-account").textContent()).toContain("2 of 3 free");
    expect((await api("/api/library", key)).status).toBe(200);
    await context.close();
  });
});

describe("device sign-in", () => {
  it("runs end to end: the client polls while the person approves, then the key works", async () => {
    const context = await newContext();
    const page = await context.newPage();
    const email = newEmail();
    await signUp(page, email);

    const code = await deviceEndpoint("/api/device-sign-in/code", {
      client_id: "shelf-cli",
      device_name: "ada-laptop",
    });
    expect(code.status).toBe(200);
    expect(code.body.user_code).toMatch(/^[B-Z]{4}-[B-Z]{4}$/);
    expect(code.body.verification_uri).toMatch(/^http:\/\/[^/]+\/device$/);
    expect(code.body.verification_uri_complete).toBe(`${code.body.verification_uri}?user_code=${code.body.user_code}`);
    const poll = () =>
      deviceEndpoint("/api/device-sign-in/token", {
        grant_type: "urn:ietf:params:oauth:grant-type:device_code",
        device_code: code.body.device_code,
        client_id: "shelf-cli",
      });
    const pending = await poll();
    expect(pending.status).toBe(400);
    expect(pending.body.error).toBe("authorization_pending");

    // The client polls every interval in the background, as the command-line client does.
    const polling = (async () => {
      for (let attempt = 0; attempt < 30; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, code.body.interval * 1000 + 100));
        const answer = await poll();
        if (answer.status === 200) return answer.body;
        expect(answer.body.error).toBe("authorization_pending");
      }
      throw new Error("no key after 30 polls");
    })();

    const complete = new URL(code.body.verification_uri_complete);
    await page.goto(complete.pathname + complete.search);
    expect(await page.getByLabel("Code").inputValue()).toBe(code.body.user_code);
    await page.getByRole("button", { name: "Continue" }).click();
    const review = page.getByRole("heading", { name: "Shelf command-line client asks to use your account" });
    await review.waitFor();
    expect(await page.getByText("ada-laptop").isVisible()).toBe(true);
    expect(await page.locator(".abilities li").first().textContent()).toBe(
      "products.read read your library and products, check for updates",
    );
    expect(await page.locator(".abilities code").allTextContents()).toEqual(CONTRACT_DEVICE_ABILITIES);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Device connected" }).waitFor();

    const token = await polling;
    recordSecret(token.access_token);
    expect(token.token_type).toBe("Bearer");
    expect(token.account.email).toBe(email);
    expect(token.key.abilities).toHaveLength(6);
    expect((await api("/api/device/entitlements", token.access_token)).status).toBe(200);
    // Single use: the device code is spent.
    expect((await poll()).body.error).toBe("invalid_grant");

    await page.goto("/settings/api-keys");
    expect(await page.getByRole("row", { name: /ada-laptop/ }).textContent()).toContain(
      "Device sign-in (command-line client)",
    );
    expect(server.output()).not.toContain(token.access_token);
    expect(server.output()).not.toContain(code.body.device_code);
    await context.close();
  });

  it("tells the client access_denied after the person denies, and expired_token once the code expired", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, newEmail());

    const denied = await deviceEndpoint("/api/device-sign-in/code", { client_id: "shelf-desktop" });
    await page.goto("/device");
    await page.getByLabel("Code").fill(denied.body.user_code.toLowerCase().replace("-", ""));
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Shelf desktop apps asks to use your account" }).waitFor();
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("heading", { name: "Sign-in denied" }).waitFor();
    const answer = await deviceEndpoint("/api/device-sign-in/token", {
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: denied.body.device_code,
      client_id: "shelf-desktop",
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("access_denied");

    const expired = await deviceEndpoint("/api/device-sign-in/code", { client_id: "shelf-cli" });
    await sql`update device_sign_ins set expires_at = now() - interval '1 second' where status = 'pending'`;
    await page.goto("/device");
    await page.getByLabel("Code").fill(expired.body.user_code);
    await page.getByRole("button", { name: "Continue" }).click();
    const alert = page.locator("main [role=alert]");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("expired");
    const late = await deviceEndpoint("/api/device-sign-in/token", {
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: expired.body.device_code,
      client_id: "shelf-cli",
    });
    expect(late.body.error).toBe("expired_token");
    await context.close();
  });
});

describe("sessions", () => {
  it("signs out this browser from the header, and every browser from the sessions page", async () => {
    const email = newEmail();
    const [first, second, third] = [await newContext(), await newContext(), await newContext()];
    const firstPage = await first.newPage();
    await signUp(firstPage, email);
    const [secondPage, thirdPage] = [await second.newPage(), await third.newPage()];
    for (const page of [secondPage, thirdPage]) {
      await signIn(page, email);
      await page.waitForURL(/\/account$/);
    }
    // The cookie as it was before signing out: the session behind it must be ended, not only the cookie dropped.
    const firstCookies = await first.cookies();

    await firstPage.getByRole("button", { name: "Sign out" }).click();
    await firstPage.waitForURL(/\/sign-in\?signedOut=1$/);
    expect(await firstPage.getByRole("status").first().textContent()).toBe("You are signed out.");
    const replayed = await newContext();
    await replayed.addCookies(firstCookies);
    const replayedPage = await replayed.newPage();
    await replayedPage.goto("/settings/api-keys");
    expect(new URL(replayedPage.url()).pathname).toBe("/sign-in");
    await secondPage.goto("/settings/api-keys");
    expect(new URL(secondPage.url()).pathname).toBe("/settings/api-keys");

    await secondPage.goto("/account/sessions");
    await secondPage.getByRole("button", { name: "Sign out everywhere" }).click();
    await secondPage
      .getByRole("dialog", { name: "Sign out every browser?" })
      .getByRole("button", { name: "Sign out everywhere" })
      .click();
    await secondPage.waitForURL(/\/sign-in\?signedOut=all$/);
    expect(await secondPage.getByRole("status").first().textContent()).toBe("You are signed out on every browser.");
    for (const page of [secondPage, thirdPage]) {
      await page.goto("/settings/api-keys");
      expect(new URL(page.url()).pathname).toBe("/sign-in");
    }
    for (const context of [first, second, third, replayed]) await context.close();
  });

  it("refuses a wrong password without saying which part was wrong, then throttles", async () => {
    const email = newEmail();
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, email);
    const other = await newContext();
    const otherPage = await other.newPage();
    await signIn(otherPage, email, "not the password");
    const alert = otherPage.locator("main [role=alert]");
    await alert.waitFor();
    expect(await alert.textContent()).toBe("The email or password is not right.");
    // 10 failures per account in 15 minutes; the 11th attempt is throttled even with the right password.
    for (let attempt = 0; attempt < 9; attempt += 1) {
      await signIn(otherPage, email, `wrong ${attempt}`);
      await otherPage.locator("main [role=alert]").waitFor();
    }
    await signIn(otherPage, email);
    await otherPage.getByText("Too many attempts").waitFor();
    expect(new URL(otherPage.url()).pathname).toBe("/sign-in");
    await context.close();
    await other.close();
  });

  it("changing the password ends the other sessions and keeps this one", async () => {
    const email = newEmail();
    const first = await newContext();
    const page = await first.newPage();
    await signUp(page, email);
    const second = await newContext();
    const otherPage = await second.newPage();
    await signIn(otherPage, email);
    await otherPage.waitForURL(/\/account$/);

    await page.goto("/account/profile");
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByLabel("New password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("1 other session was signed out.").waitFor();
    await page.goto("/account");
    expect(new URL(page.url()).pathname).toBe("/account");
    await otherPage.goto("/account");
    expect(new URL(otherPage.url()).pathname).toBe("/sign-in");
    await first.close();
    await second.close();
  });

  it("never puts a password in the address, even when the form is sent before its script runs", async () => {
    const context = await browser.newContext({ baseURL: server.url, javaScriptEnabled: false });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill("someone@example.test");
    await page.getByLabel("Password").fill("secret-in-a-url");
    await page.getByLabel("Password").press("Enter");
    await page.waitForLoadState();
    expect(requests.join(" ")).not.toContain("secret-in-a-url");
    expect(page.url()).not.toContain("secret");
    await context.close();
  });

  it("refuses a sign-in post without next-auth's CSRF token", async () => {
    const response = await fetch(`${server.url}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "someone@example.test", password: PASSWORD, json: "true" }),
      redirect: "manual",
    });
    expect(response.headers.get("set-cookie") ?? "").not.toMatch(/session-token=[^;]/);
    const location = response.headers.get("location") ?? (await response.json()).url;
    expect(location).toContain("csrf=true");
  });
});

describe("the account area", () => {
  it("keeps the person's own pages apart from developer settings, and the old addresses lead there", async () => {
    const moved = {
      "/settings/security": "/account/profile",
      "/settings/sessions": "/account/sessions",
      "/settings/security-log?before=5": "/account/security-log?before=5",
      "/settings/delete-account": "/account/delete",
    };
    for (const [from, to] of Object.entries(moved)) {
      const response = await fetch(`${server.url}${from}`, { redirect: "manual" });
      expect(response.status, from).toBe(308);
      expect(response.headers.get("location"), from).toBe(to);
    }
    for (const [locale, labels] of [
      [
        "en-US",
        {
          account: "Account",
          developer: "Developer settings",
          pages: ["Profile", "Sessions", "Security log", "Delete account"],
          keys: ["API keys", "Connected apps"],
        },
      ],
      [
        "ko-KR",
        {
          account: "계정",
          developer: "개발자 설정",
          pages: ["프로필", "세션", "보안 기록", "계정 삭제"],
          keys: ["API 키", "연결된 앱"],
        },
      ],
    ] as const) {
      const context = await newContext(locale);
      const page = await context.newPage();
      await signUp(page, newEmail());
      // An old bookmark lands on the new page.
      await page.goto("/settings/security");
      expect(new URL(page.url()).pathname).toBe("/account/profile");
      const header = page.locator("header nav");
      for (const pathname of ["/account/profile", "/account/sessions", "/account/security-log", "/account/delete"]) {
        await page.goto(pathname);
        expect(await header.locator("[aria-current=page]").textContent(), pathname).toBe(labels.account);
        expect(await page.locator("main nav.sub-nav a").allTextContents()).toEqual(labels.pages);
        for (const width of [1440, 390]) {
          await page.setViewportSize({ width, height: 900 });
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
          ).toBeLessThanOrEqual(0);
        }
      }
      await page.goto("/settings/api-keys");
      expect(await header.locator("[aria-current=page]").textContent()).toBe(labels.developer);
      expect(await page.locator("main nav.sub-nav a").allTextContents()).toEqual(labels.keys);
      await page.setViewportSize({ width: 390, height: 900 });
      await page.goto("/account/profile");
      await expectNoSeriousViolations(page, `${locale} profile`);
      await page.screenshot({ path: `${shots}/${locale.slice(0, 2)}-390-account-profile.png`, fullPage: true });
      await context.close();
    }
  });
});

describe("times", () => {
  /** The clock a time shows in a zone `offset` minutes from UTC, as the page writes it: 12-hour, no leading zero. */
  function clock(iso: string, offset: number): { hour: number; minute: string; afternoon: boolean } {
    const shifted = new Date(new Date(iso).getTime() + offset * 60_000);
    const hours = shifted.getUTCHours();
    return {
      hour: hours % 12 === 0 ? 12 : hours % 12,
      minute: String(shifted.getUTCMinutes()).padStart(2, "0"),
      afternoon: hours >= 12,
    };
  }

  /** ICU writes a narrow no-break space before AM and PM: compared as plain spaces. */
  const spaced = (text: string) => text.replace(/\s+/g, " ");

  async function firstLogTime(page: Page) {
    const time = page.locator("ol.log time").first();
    return { iso: (await time.getAttribute("datetime")) as string, text: spaced((await time.textContent()) as string) };
  }

  it("writes times in the person's zone and names it: Korea's for a Korean page, the browser's once known", async () => {
    // A Korean buyer whose browser is in Korea: the sign-in nine hours ahead of UTC, in Korean words.
    const korean = await browser.newContext({ locale: "ko-KR", baseURL: server.url, timezoneId: "Asia/Seoul" });
    const page = await korean.newPage();
    await signUp(page, newEmail());
    await page.goto("/account/security-log");
    const seoul = await firstLogTime(page);
    const there = clock(seoul.iso, 9 * 60);
    expect(seoul.text).toContain(`${there.afternoon ? "오후" : "오전"} ${there.hour}:${there.minute} 한국 표준시`);
    await page.screenshot({ path: `${shots}/ko-security-log-seoul.png`, fullPage: true });

    // A page rendered before any script ran (no zone cookie): Korea's zone for Korean, UTC otherwise, named.
    await korean.clearCookies({ name: "shelf-tz" });
    const plain = spaced(
      await (await korean.request.get("/account/security-log", { headers: { "accept-language": "ko-KR" } })).text(),
    );
    expect(plain).toContain(`${there.afternoon ? "오후" : "오전"} ${there.hour}:${there.minute} 한국 표준시`);
    await korean.close();

    // An English page in a browser in India: UTC on the very first render, then the browser's zone (+5:30).
    const english = await browser.newContext({ locale: "en-US", baseURL: server.url, timezoneId: "Asia/Kolkata" });
    const englishPage = await english.newPage();
    await signUp(englishPage, newEmail());
    await english.clearCookies({ name: "shelf-tz" });
    const first = spaced(await (await english.request.get("/account/security-log")).text());
    const time = /<time datetime="([^"]+)">([^<]+)<\/time>/i.exec(first);
    const utc = clock(time?.[1] as string, 0);
    expect(time?.[2]).toContain(`${utc.hour}:${utc.minute} ${utc.afternoon ? "PM" : "AM"} UTC`);
    await englishPage.goto("/account");
    await englishPage.waitForFunction(() => document.cookie.includes("shelf-tz="));
    await englishPage.goto("/account/security-log");
    const india = await firstLogTime(englishPage);
    const local = clock(india.iso, 5 * 60 + 30);
    expect(india.text).toContain(`${local.hour}:${local.minute} ${local.afternoon ? "PM" : "AM"} GMT+5:30`);
    await english.close();
  });
});

describe("OAuth consent and connected apps", () => {
  const REDIRECT = "http://127.0.0.1:45999/callback";

  /** A registered app (new unless named) and an authorization URL with PKCE, as an MCP client would make them. */
  async function authorization(scope?: string, clientId?: string) {
    const registered = clientId
      ? { client_id: clientId }
      : await fetch(`${server.url}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ client_name: "Notebook Assistant", redirect_uris: [REDIRECT] }),
        }).then((response) => response.json());
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const resource = `http://localhost:${new URL(server.url).port}/api/mcp`;
    const query = new URLSearchParams({
      response_type: "code",
      client_id: registered.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource,
      state: "xyz",
      ...(scope ? { scope } : {}),
    });
    return { clientId: registered.client_id as string, verifier, resource, path: `/oauth/authorize?${query}` };
  }

  /**
   * Presses the consent page's button and returns the URL the browser was sent to. The app's redirect URI is answered
   * as the app's own local listener would answer it, and the browser has finished landing there before this returns:
   * a navigation to a port nothing listens on fails later, at a moment of its own, and would cut the next `goto` short.
   */
  async function pressAndLand(page: Page, button: string) {
    const atApp = (url: URL) => url.href.startsWith(REDIRECT);
    await page.route(atApp, (route) =>
      route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Notebook Assistant</title>Done." }),
    );
    await page.getByRole("button", { name: button }).click();
    await page.waitForURL(atApp);
    return new URL(page.url());
  }

  /** The consent page's box of a scope. */
  const box = (page: Page, scope: string) =>
    page.getByRole("checkbox", { name: new RegExp(scope.replace(".", "\\.")) });

  /** The token request an app makes with the code its redirect URI received. */
  async function redeem(
    flow: { clientId: string; verifier: string },
    callback: URL,
    extra: Record<string, string> = {},
  ) {
    const tokens = await fetch(`${server.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: callback.searchParams.get("code") as string,
        client_id: flow.clientId,
        redirect_uri: REDIRECT,
        code_verifier: flow.verifier,
        ...extra,
      }),
    }).then((response) => response.json());
    recordSecret(tokens.access_token);
    recordSecret(tokens.refresh_token);
    return tokens;
  }

  it("asks the person on a clear consent page, hands the app a code, and disconnecting stops the app at once", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, newEmail());
    const flow = await authorization();
    await page.goto(flow.path);
    await page.getByRole("heading", { name: "Notebook Assistant wants to use your Shelf account" }).waitFor();
    expect(await page.getByText("127.0.0.1:45999").first().isVisible()).toBe(true);
    expect(await page.getByText("runs on your own computer").isVisible()).toBe(true);
    expect(await page.locator(".abilities code").allTextContents()).toEqual(["products.read", "mcp.read"]);
    await expectNoSeriousViolations(page, "en consent");
    await page.screenshot({ path: `${shots}/en-oauth-consent.png`, fullPage: true });

    // The browser is sent to the app's redirect URI with the code.
    const callback = await pressAndLand(page, "Allow");
    expect(callback.searchParams.get("state")).toBe("xyz");
    const tokens = await redeem(flow, callback, { resource: flow.resource });
    const mcp = () =>
      fetch(`${server.url}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          host: `localhost:${new URL(server.url).port}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
      });
    expect((await mcp()).status).toBe(200);

    await page.goto("/settings/connected-apps");
    const row = page.getByRole("row", { name: /Notebook Assistant/ });
    expect(await row.textContent()).toContain("127.0.0.1:45999");
    expect(await row.locator("code").allTextContents()).toEqual(["127.0.0.1:45999", "products.read", "mcp.read"]);
    await page.screenshot({ path: `${shots}/en-settings-connected-apps-listed.png`, fullPage: true });
    await row.getByRole("button", { name: "Disconnect" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Disconnect" }).click();
    await page.getByText("No app is connected.").waitFor();
    expect((await mcp()).status).toBe(401);
    await context.close();
  });

  it("lets the person untick abilities the app asked for, and grants only what stayed ticked", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, newEmail());
    const flow = await authorization("orders.read subscriptions.read products.read");
    await page.goto(flow.path);
    expect(await box(page, "mcp.read").isDisabled()).toBe(true);
    expect(await box(page, "mcp.read").isChecked()).toBe(true);
    await box(page, "orders.read").uncheck();
    await box(page, "subscriptions.read").uncheck();
    await page.screenshot({ path: `${shots}/en-oauth-consent-unticked.png`, fullPage: true });
    const callback = await pressAndLand(page, "Allow");
    // resource left out: this server has one.
    const tokens = await redeem(flow, callback);
    expect(tokens.scope).toBe("products.read mcp.read");
    await context.close();
  });

  it("shows what a connected app already holds as already allowed on a step-up, not as boxes to untick", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, newEmail());
    const first = await authorization("products.read");
    await page.goto(first.path);
    expect((await redeem(first, await pressAndLand(page, "Allow"))).scope).toBe("products.read mcp.read");
    // The app met a 403 for orders.read and asks for the challenge's scope: what it holds plus what it needs.
    const stepUp = await authorization("products.read orders.read mcp.read", first.clientId);
    await page.goto(stepUp.path);
    for (const held of ["products.read", "mcp.read"]) {
      expect(await box(page, held).isDisabled(), held).toBe(true);
      expect(await box(page, held).isChecked(), held).toBe(true);
      expect(
        await page
          .getByRole("listitem")
          .filter({ has: box(page, held) })
          .textContent(),
        held,
      ).toContain("already allowed");
    }
    expect(await box(page, "orders.read").isDisabled()).toBe(false);
    expect(
      await page
        .getByRole("listitem")
        .filter({ has: box(page, "orders.read") })
        .textContent(),
    ).not.toContain("already allowed");
    expect(await page.getByText("To take an ability away, disconnect the app").isVisible()).toBe(true);
    await expectNoSeriousViolations(page, "en consent step-up");
    await page.screenshot({ path: `${shots}/en-oauth-consent-step-up.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${shots}/en-oauth-consent-step-up-390.png`, fullPage: true });
    await page.getByRole("button", { name: "한국어" }).click();
    await page.getByText("이미 허용됨").first().waitFor();
    await page.screenshot({ path: `${shots}/ko-oauth-consent-step-up-390.png`, fullPage: true });
    const tokens = await redeem(stepUp, await pressAndLand(page, "허용"));
    expect(tokens.scope).toBe("products.read orders.read mcp.read");
    await context.close();
  });

  it("shows the consent page in Korean, and sends a denial back to the app", async () => {
    const context = await newContext("ko-KR");
    const page = await context.newPage();
    const email = newEmail();
    const signUpContext = await newContext();
    await signUp(await signUpContext.newPage(), email);
    await signUpContext.close();
    const flow = await authorization();
    // Not signed in: through sign-in and back to the consent page.
    await page.goto(flow.path);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.getByLabel("이메일").fill(email);
    await page.getByLabel("비밀번호").fill(PASSWORD);
    await page.locator("main").getByRole("button", { name: "로그인" }).click();
    await page.getByRole("heading", { name: "Notebook Assistant이(가) 내 Shelf 계정 사용을 요청합니다" }).waitFor();
    await expectNoSeriousViolations(page, "ko consent");
    // Each ability in Korean, from the abilities table.
    expect(await page.locator(".abilities li").allTextContents()).toEqual([
      expect.stringContaining("products.read 라이브러리와 제품 조회, 업데이트 확인"),
      expect.stringContaining("mcp.read 계정 MCP 엔드포인트 사용"),
    ]);
    await page.screenshot({ path: `${shots}/ko-oauth-consent.png`, fullPage: true });
    const callback = await pressAndLand(page, "거부");
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe("xyz");
    await context.close();
  });

  it("passes the MCP conformance suite's authorization server scenarios, a signed-in person approving in the browser", async () => {
    const port = await freePort();
    const registered = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Conformance suite", redirect_uris: [`http://127.0.0.1:${port}/callback`] }),
    }).then((response) => response.json());
    // The issuer, exactly as the metadata names it (the suite compares them byte for byte).
    const issuer = `http://localhost:${new URL(server.url).port}`;
    const run = conformanceAuthorization([
      "--url",
      issuer,
      "--client-id",
      registered.client_id,
      "--resource",
      `${issuer}/api/mcp`,
      "--port",
      String(port),
    ]);
    try {
      const context = await browser.newContext({ baseURL: issuer });
      const page = await context.newPage();
      await signUp(page, newEmail());
      await page.goto(await run.authorizationUrl);
      const back = page.waitForRequest((request) => request.url().startsWith(`http://127.0.0.1:${port}/callback`));
      await page.getByRole("button", { name: "Allow" }).click();
      await back;
      const result = await run.done;
      expect(result.failed, result.output).toBe(0);
      expect(result.passed, result.output).toBeGreaterThanOrEqual(2);
      await context.close();
    } finally {
      run.child.kill();
    }
  }, 120_000);

  it("tells the person, and sends nothing, when the request names an unknown app", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`/oauth/authorize?client_id=shelfc_nobody&redirect_uri=${encodeURIComponent(REDIRECT)}`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("This sign-in request cannot be used");
    expect(new URL(page.url()).pathname).toBe("/oauth/authorize");
    await context.close();
  });
});

describe("several instances", () => {
  it("keeps a session across instances and across a restart, and a sign-out on one ends it on the other", async () => {
    // A second instance on the same database and data folder (so the same generated auth secret), as a deployment
    // of several instances shares SHELF_AUTH_SECRET. Cookies ignore ports: one browser visits both.
    let second = await startServer({ DATABASE_URL: testDb.url, SHELF_DATA_DIR: dataDir });
    try {
      const context = await newContext();
      const page = await context.newPage();
      const email = newEmail();
      await signUp(page, email);

      await page.goto(`${second.url}/settings/api-keys`);
      expect(new URL(page.url()).pathname).toBe("/settings/api-keys");

      await second.stop();
      second = await startServer({ DATABASE_URL: testDb.url, SHELF_DATA_DIR: dataDir });
      await page.goto(`${second.url}/account`);
      expect(new URL(page.url()).pathname).toBe("/account");
      expect(await page.getByText(email).first().isVisible()).toBe(true);

      // Signed out on the second instance, the same cookie is refused by the first.
      const cookies = await context.cookies();
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(/signedOut=1$/);
      const replayed = await newContext();
      await replayed.addCookies(cookies);
      const replayedPage = await replayed.newPage();
      await replayedPage.goto(`${server.url}/account`);
      expect(new URL(replayedPage.url()).pathname).toBe("/sign-in");
      await context.close();
      await replayed.close();
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe("forms and cross-site requests", () => {
  it("runs a page's server action from its own origin and refuses it from another", async () => {
    const html = await (await fetch(`${server.url}/sign-in`)).text();
    const field = /name="(\$ACTION_ID_[0-9a-f]+)"/.exec(html)?.[1];
    expect(field).toBeDefined();
    const post = (origin: string) => {
      const form = new FormData();
      form.set(field as string, "");
      form.set("locale", "ko");
      return fetch(`${server.url}/sign-in`, {
        method: "POST",
        headers: { origin },
        body: form,
        redirect: "manual",
      });
    };
    const own = await post(server.url);
    expect(own.headers.get("set-cookie") ?? "").toContain("shelf-locale=ko");
    const foreign = await post("https://evil.example");
    expect(foreign.headers.get("set-cookie") ?? "").not.toContain("shelf-locale");
    expect(foreign.status).toBeGreaterThanOrEqual(400);
  });
});

describe("page quality", () => {
  it("sends a nonce CSP, no framing and no sniffing with every page", async () => {
    const response = await fetch(`${server.url}/sign-in`);
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain("unsafe-eval");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    const second = await fetch(`${server.url}/sign-in`);
    expect(second.headers.get("content-security-policy")).not.toContain(`'nonce-${nonce}'`);
    // A client cannot choose its own nonce or address.
    const forged = await fetch(`${server.url}/sign-in`, {
      headers: { "x-shelf-nonce": "forged", "content-security-policy": "x" },
    });
    expect(await forged.text()).not.toContain('nonce="forged"');
  });

  it("has no serious axe-core violation on any page, in English and in Korean, with screenshots", async () => {
    const email = newEmail();
    for (const [locale, lang] of [
      ["en-US", "en"],
      ["ko-KR", "ko"],
    ] as const) {
      const context = await newContext(locale);
      const page = await context.newPage();
      const cspErrors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" && message.text().includes("Content Security Policy"))
          cspErrors.push(message.text());
      });
      for (const path of ["/", "/sign-in", "/sign-up", "/nowhere"]) {
        await page.goto(path);
        expect(await page.getAttribute("html", "lang")).toBe(lang);
        await expectNoSeriousViolations(page, `${lang} ${path}`);
        await page.screenshot({
          path: path === "/" ? `${shots}/${lang}-home.png` : `${shots}/${lang}${path.replaceAll("/", "-")}.png`,
          fullPage: true,
        });
      }
      if (lang === "en") {
        await signUp(page, email);
        await admin("entitlement:grant", "--email", email, "--product", String(productId));
        await createKey(page, "Screenshot key");
        await page.screenshot({ path: `${shots}/${lang}-settings-api-keys-created.png`, fullPage: true });
        await expectNoSeriousViolations(page, `${lang} key shown once`);
      } else {
        // Korean through the browser's language, kept after signing in; the switch works too.
        await page.goto("/sign-in");
        expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("로그인");
        await page.getByLabel("이메일").fill(email);
        await page.getByLabel("비밀번호").fill(PASSWORD);
        await page.locator("main").getByRole("button", { name: "로그인" }).click();
        await page.waitForURL(/\/account$/);
      }
      const pages = [
        "/account",
        `/account/products/${productId}`,
        "/account/devices",
        "/settings/api-keys",
        "/settings/connected-apps",
        "/account/profile",
        "/device",
      ];
      for (const path of pages) {
        await page.goto(path);
        expect(new URL(page.url()).pathname).toBe(path);
        await expectNoSeriousViolations(page, `${lang} ${path}`);
        await page.screenshot({
          path: `${shots}/${lang}${path.replaceAll("/", "-").replace(/-\d+$/, "-product")}.png`,
          fullPage: true,
        });
      }
      // The phone-sized layout keeps everything reachable.
      await page.setViewportSize({ width: 375, height: 740 });
      await page.goto("/settings/api-keys");
      await expectNoSeriousViolations(page, `${lang} phone`);
      await page.screenshot({ path: `${shots}/${lang}-phone-settings-api-keys.png`, fullPage: true });
      expect(cspErrors).toEqual([]);
      await context.close();
    }
    const context = await newContext("en-US");
    const page = await context.newPage();
    await page.goto("/sign-in");
    await page.getByRole("button", { name: "한국어" }).click();
    await page.getByRole("heading", { name: "로그인" }).waitFor();
    expect(await page.getAttribute("html", "lang")).toBe("ko");
    await context.close();
  });
});
