import { createHash, randomBytes } from "node:crypto";
import { recordSecret } from "@shelf/api/testing";
import type { Browser, BrowserContext } from "playwright-core";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi } from "./json-api";
import { openWebPageSuite, overflow, shots, signedInContext, type WebPageSuite } from "./page-suite";
import type { RunningServer } from "./server";

/**
 * The pages as a new user meets them, on the demo data set: the demo's images, every page at phone width in both
 * languages with long names in every list, text that wraps instead of widening the page, Korean pages in Korean,
 * forms that keep what was typed, and one session lookup per page (screenshots kept in test-results/pages).
 */

const DEMO_EMAIL = "demo@shelf.test";
const DEMO_PASSWORD = "shelf-demo-password";
/** Names with no place to break a line, as long as each field allows. */
const LONG_ACCOUNT_NAME = "N".repeat(200);
const LONG_KEY_NAME = "K".repeat(100);
const LONG_DEVICE_NAME = "D".repeat(255);
const LONG_APP_NAME = "A".repeat(200);

let sql: postgres.Sql;
let server: RunningServer;
let browser: Browser;
let demoKey: string;
let productIds: number[];
let consentPath: string;

const api = jsonApi(() => server.url);

let suite: WebPageSuite | undefined;

beforeAll(async () => {
  suite = await openWebPageSuite({ name: "demo-pages", env: { SHELF_DEMO: "1" } });
  ({ sql, server, browser, demoKey } = suite);

  // Long names in every list: the account, a device, a connected app (a key comes through the form below).
  await sql`update accounts set name = ${LONG_ACCOUNT_NAME} where email = ${DEMO_EMAIL}`;
  const library = await api("/api/library", demoKey);
  productIds = library.body.items.map((item: { product: { id: number } }) => item.product.id);
  const activated = await api("/api/device/bulk-activate", demoKey, { method: "POST", body: {} });
  const productKey = activated.body.keys[0];
  recordSecret(productKey.key);
  const checked = await api("/api/license/check", productKey.key, {
    method: "POST",
    body: { product_id: productKey.product_id, device_id: "LAPTOP-LONG", device_name: LONG_DEVICE_NAME },
  });
  expect(checked.status).toBe(200);
  const redirect = "http://127.0.0.1:45998/callback";
  const registered = await fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: LONG_APP_NAME, redirect_uris: [redirect] }),
  }).then((response) => response.json());
  const query = new URLSearchParams({
    response_type: "code",
    client_id: registered.client_id,
    redirect_uri: redirect,
    code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
    code_challenge_method: "S256",
    resource: `http://localhost:${new URL(server.url).port}/api/mcp`,
    state: "s",
  });
  consentPath = `/oauth/authorize?${query}`;
  const context = await signedIn("en-US");
  const page = await context.newPage();
  await page.goto(consentPath);
  const back = page.waitForRequest((request) => request.url().startsWith(redirect));
  await page.getByRole("button", { name: "Allow" }).click();
  await back;
  await page.close();
  const keys = await context.newPage();
  await keys.goto("/settings/api-keys");
  await keys.getByLabel("Name", { exact: true }).fill(LONG_KEY_NAME);
  await keys.getByRole("button", { name: "Create key" }).click();
  recordSecret(await keys.getByLabel("The new key").inputValue());
  await context.close();
}, 240_000);

afterAll(() => suite?.close());

function signedIn(locale: string, viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
  return signedInContext(browser, server.url, { locale, viewport, email: DEMO_EMAIL, password: DEMO_PASSWORD });
}

describe("demo images", () => {
  it("serves every image the demo catalog names, as an image, and shows them on the library and product pages", async () => {
    const library = await api("/api/library", demoKey);
    const urls: string[] = [];
    for (const item of library.body.items) {
      if (item.hero_path) {
        urls.push(`/api/products/${item.product.id}/content-assets/${item.hero_path}`);
      }
      const thumbnail = /src="([^"]+)"/.exec(item.thumbnail_html ?? "")?.[1];
      if (item.thumbnail_html) urls.push(thumbnail as string);
    }
    expect(urls.length).toBeGreaterThanOrEqual(5);
    for (const url of urls) {
      const response = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${demoKey}` } });
      expect(response.status, url).toBe(200);
      expect(response.headers.get("content-type"), url).toMatch(/^image\//);
      expect((await response.arrayBuffer()).byteLength, url).toBeLessThan(16 * 1024);
    }

    const context = await signedIn("en-US");
    const page = await context.newPage();
    const broken: string[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "image" && response.status() !== 200) broken.push(response.url());
    });
    await page.goto("/account");
    await page.waitForLoadState("networkidle");
    const heroes = library.body.items.filter((item: { hero_path: string | null }) => item.hero_path).length;
    const shown = await page
      .locator(".product-card img")
      .evaluateAll((images) => (images as HTMLImageElement[]).filter((image) => image.naturalWidth > 0).length);
    expect(shown).toBeGreaterThanOrEqual(heroes);
    await page.screenshot({ path: `${shots}/en-demo-library.png`, fullPage: true });
    const withHero = library.body.items.find((item: { hero_path: string | null }) => item.hero_path);
    await page.goto(`/account/products/${withHero.product.id}`);
    const hero = page.getByRole("img", { name: withHero.hero_alt });
    await hero.waitFor();
    expect(await hero.evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await page.screenshot({ path: `${shots}/en-demo-product.png`, fullPage: true });
    expect(broken).toEqual([]);

    // The pages' file route refuses in the contract's shapes: no session, no such file, a path it never serves.
    const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join("; ");
    const asset = (path: string, headers: Record<string, string> = { cookie }) =>
      fetch(`${server.url}/account/products/${withHero.product.id}/content-assets/${path}`, { headers }).then(
        async (response) => ({ status: response.status, body: await response.json() }),
      );
    expect(await asset(withHero.hero_path, {})).toEqual({
      status: 404,
      body: { message: "Not found.", error: "not_found" },
    });
    expect(await asset("demo/heroes/none.png")).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect(await asset("a%00b.png")).toMatchObject({ status: 422, body: { errors: { path: expect.any(Array) } } });
    await context.close();
  });
});

describe("phones", () => {
  it("scrolls no page sideways at 390 px, in English and in Korean, with long names in every list", async () => {
    for (const locale of ["en-US", "ko-KR"]) {
      const lang = locale.slice(0, 2);
      const viewport = { width: 390, height: 844 };
      const visitor = await browser.newContext({ locale, baseURL: server.url, viewport });
      const anonymous = await visitor.newPage();
      for (const pathname of ["/", "/sign-in", "/sign-up", "/nowhere", "/docs/api"]) {
        await anonymous.goto(pathname);
        await anonymous.waitForLoadState("networkidle");
        expect(await overflow(anonymous), `${lang} ${pathname}`).toBeLessThanOrEqual(0);
      }
      await visitor.close();

      const context = await signedIn(locale, viewport);
      const page = await context.newPage();
      const pages = [
        "/account",
        ...productIds.map((id) => `/account/products/${id}`),
        "/account/devices",
        "/settings",
        "/settings/api-keys",
        "/settings/connected-apps",
        "/account/profile",
        "/device",
        consentPath,
      ];
      for (const pathname of pages) {
        await page.goto(pathname);
        await page.waitForLoadState("networkidle");
        expect(await overflow(page), `${lang} ${pathname}`).toBeLessThanOrEqual(0);
      }
      for (const pathname of ["/account", "/account/devices", "/settings/api-keys", "/settings/connected-apps"]) {
        await page.goto(pathname);
        await page.screenshot({ path: `${shots}/${lang}-390${pathname.replaceAll("/", "-")}.png`, fullPage: true });
      }
      await context.close();
    }
  }, 240_000);

  it("stacks the rows of keys, devices and apps at 390 px, each action on screen and no word broken letter by letter", async () => {
    for (const locale of ["en-US", "ko-KR"]) {
      const lang = locale.slice(0, 2);
      for (const width of [1440, 390]) {
        const context = await signedIn(locale, { width, height: 900 });
        const page = await context.newPage();
        for (const pathname of ["/settings/api-keys", "/account/devices", "/settings/connected-apps"]) {
          await page.goto(pathname);
          await page.waitForLoadState("networkidle");
          const label = `${lang} ${width} ${pathname}`;
          const layout = await page.evaluate(() => {
            const table = document.querySelector("main table") as HTMLTableElement;
            const wrap = table.closest(".table-wrap") as HTMLElement;
            const actions = [...table.querySelectorAll("tbody .row-actions button")].map((button) => {
              const box = button.getBoundingClientRect();
              return { left: box.left, right: box.right };
            });
            const cells = [...table.querySelectorAll("tbody td[data-label]")].map(
              (cell) => cell.getBoundingClientRect().width,
            );
            return {
              scrolls: wrap.scrollWidth - wrap.clientWidth,
              actions,
              narrowest: Math.min(...cells),
              headers: getComputedStyle(table.querySelector("thead") as Element).position,
            };
          });
          expect(layout.scrolls, `${label}: the table scrolls sideways`).toBeLessThanOrEqual(0);
          expect(layout.actions.length, label).toBeGreaterThan(0);
          for (const box of layout.actions) {
            expect(box.left, label).toBeGreaterThanOrEqual(0);
            expect(box.right, label).toBeLessThanOrEqual(width);
          }
          if (width === 390) {
            // Every cell a line of the row's card, as wide as the card: long names wrap by words, not letters.
            expect(layout.narrowest, label).toBeGreaterThan(300);
            expect(layout.headers, label).toBe("absolute");
            await page.screenshot({
              path: `${shots}/${lang}-390-stacked${pathname.replaceAll("/", "-")}.png`,
              fullPage: true,
            });
          } else {
            expect(layout.headers, label).not.toBe("absolute");
          }
        }
        await context.close();
      }
    }
  }, 240_000);
});

describe("text", () => {
  it("wraps a long name without spaces instead of widening the library page", async () => {
    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto("/account");
    expect(await page.getByText(LONG_ACCOUNT_NAME, { exact: false }).isVisible()).toBe(true);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await context.close();
  });

  it("names platforms, install targets and card brands as people write them, never by their identifiers", async () => {
    const context = await signedIn("ko-KR");
    const page = await context.newPage();
    const seen: string[] = [];
    for (const pathname of [...productIds.map((id) => `/account/products/${id}`), "/account/billing"]) {
      await page.goto(pathname);
      const text = (await page.locator("main").textContent()) ?? "";
      expect(text, pathname).not.toMatch(/\b(macos|windows|linux|codex|claude-code|vscode|visa)\b/);
      seen.push(text);
    }
    const all = seen.join(" ");
    for (const name of ["macOS", "Codex", "Visa"]) expect(all).toContain(name);
    await context.close();
  });

  it("keeps Korean words whole, and says everything on Korean pages in Korean, times included", async () => {
    const context = await signedIn("ko-KR");
    const page = await context.newPage();
    await page.goto("/account");
    expect(await page.evaluate(() => getComputedStyle(document.querySelector("main p") as Element).wordBreak)).toBe(
      "keep-all",
    );
    const labels = await page.locator(".product-card .muted").allTextContents();
    expect(labels.join(" ")).not.toMatch(/\b(App|Agent skill|Extension|Command-line tool)\b/);

    await page.goto("/account/devices");
    const seen = (await page.locator("main table").textContent()) ?? "";
    expect(seen).toMatch(/오전|오후/);
    expect(seen).not.toMatch(/\b(AM|PM)\b/);

    const code = await fetch(`${server.url}/api/device-sign-in/code`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: "shelf-desktop" }),
    }).then((response) => response.json());
    await page.goto(`/device?user_code=${code.user_code}`);
    await page.locator("main button[type=submit]").click();
    const heading = page.locator("#review-title");
    await heading.waitFor();
    expect(await heading.textContent()).not.toMatch(/desktop apps/i);
    expect(await heading.textContent()).toContain("데스크톱 앱");
    await context.close();
  });
});

describe("forms after a refusal", () => {
  it("keeps the sign-up form as typed when the email is taken, and links to sign-in", async () => {
    const context = await browser.newContext({ locale: "en-US", baseURL: server.url });
    const page = await context.newPage();
    await page.goto("/sign-up");
    await page.getByLabel("Name").fill("Grace");
    await page.getByLabel("Email").fill(DEMO_EMAIL);
    await page.getByLabel("Password").fill("a long enough password");
    await page.locator("main").getByRole("button", { name: "Create account" }).click();
    await page.locator("main [role=alert]").waitFor();
    expect(await page.getByLabel("Name").inputValue()).toBe("Grace");
    expect(await page.getByLabel("Email").inputValue()).toBe(DEMO_EMAIL);
    expect(await page.getByLabel("Password").inputValue()).toBe("a long enough password");
    const link = page.locator("main [role=alert]").getByRole("link", { name: "Sign in instead" });
    expect(await link.getAttribute("href")).toMatch(/^\/sign-in(\?|$)/);
    await context.close();
  });

  it("keeps the key form as typed when no ability is chosen, with none ticked again", async () => {
    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto("/settings/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("No abilities");
    for (const box of await page.locator("input[name=abilities]").all()) await box.uncheck();
    await page.getByLabel("Expires").selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByText("Choose at least one ability.").waitFor();
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("No abilities");
    expect(await page.locator("input[name=abilities]:checked").count()).toBe(0);
    expect(await page.getByLabel("Expires").inputValue()).toBe("30");
    await context.close();
  });

  it("keeps a wrong device code in its field", async () => {
    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto("/device");
    await page.getByLabel("Code").fill("BBBB-CCCC");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.locator("main [role=alert]").waitFor();
    expect(await page.getByLabel("Code").inputValue()).toBe("BBBB-CCCC");
    await context.close();
  });
});

describe("sessions", () => {
  it("looks the session up once per page render", async () => {
    // Every lookup of a session seen long ago writes its last use: a trigger counts those writes and keeps the
    // session looking old, so each lookup in a render is counted.
    await sql.unsafe(`
      create table session_lookups (at timestamptz not null default clock_timestamp());
      create function count_session_lookup() returns trigger language plpgsql as $$
      begin
        insert into session_lookups default values;
        new.last_seen_at := now() - interval '1 day';
        return new;
      end $$;
      create trigger count_session_lookup before update of last_seen_at on web_sessions
        for each row execute function count_session_lookup();
    `);
    const context = await signedIn("en-US");
    const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join("; ");
    await sql`update web_sessions set last_seen_at = now() - interval '1 day'`;
    for (const pathname of ["/account", "/settings/api-keys"]) {
      await sql`delete from session_lookups`;
      const response = await fetch(`${server.url}${pathname}`, { headers: { cookie } });
      expect(response.status).toBe(200);
      await response.text();
      const [{ count }] = (await sql`select count(*)::int as count from session_lookups`) as unknown as [
        { count: number },
      ];
      expect(count, pathname).toBe(1);
    }
    await context.close();
  });
});

describe("a blocked device", () => {
  it("is shown blocked on the devices page, not released, and the person who blocked it unblocks it there", async () => {
    const activated = await api("/api/device/bulk-activate", demoKey, { method: "POST", body: {} });
    const productKey = activated.body.keys[0] as { key: string; product_id: number; product_name: string };
    recordSecret(productKey.key);
    const check = () =>
      api("/api/license/check", productKey.key, {
        method: "POST",
        body: { product_id: productKey.product_id, device_id: "LOST-PHONE-1", device_name: "Lost phone" },
      });
    expect((await check()).body).toMatchObject({ licensed: true, code: "valid" });

    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto(`/account/products/${productKey.product_id}`);
    await page.getByRole("row").filter({ hasText: "Lost phone" }).getByRole("button", { name: "Block" }).click();
    await page.getByRole("dialog", { name: "Block Lost phone?" }).getByRole("button", { name: "Block" }).click();
    await page.getByRole("row").filter({ hasText: "Lost phone" }).waitFor({ state: "detached" });
    expect((await check()).body).toMatchObject({ licensed: false, code: "device_revoked" });

    await page.goto("/account/devices");
    const row = page.getByRole("row").filter({ hasText: "Lost phone" });
    expect(await row.textContent()).toContain(`Blocked from ${productKey.product_name} by you`);
    await page.screenshot({ path: `${shots}/en-devices-blocked.png`, fullPage: true });
    await row.getByRole("button", { name: "Unblock" }).click();
    await page
      .getByRole("dialog", { name: `Unblock Lost phone on ${productKey.product_name}?` })
      .getByRole("button", { name: "Unblock" })
      .click();
    await page.waitForFunction(() => !document.querySelector("main")?.textContent?.includes("by you"));
    expect((await check()).body).toMatchObject({ licensed: true, code: "valid" });
    await page.goto("/account/security-log");
    expect(await page.locator("ol.log > li strong").first().textContent()).toBe("Device unblocked");
    await context.close();
  });
});
