import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { expiredLinkLike, recordSecret } from "@shelf/api/testing";
import { parseMail } from "@shelf/api/testing/smtp";
import type { TestDatabase } from "@shelf/db/testing";
import type { Browser, Page } from "playwright-core";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCli } from "./admin-cli";
import { jsonApi } from "./json-api";
import {
  expectNoSeriousViolations,
  openWebPageSuite,
  overflow,
  shots,
  signedInContext,
  type WebPageSuite,
} from "./page-suite";
import type { RunningServer } from "./server";

/**
 * The product page and the billing page on the demo data set, in Debian's Chromium against the production build:
 * downloads whose file has the plan's sha256, a device blocked from the page refused at its next license check, a
 * subscription cancelled and resumed, invoices paged as the API pages them, another account's orders and invoices
 * never shown; both languages, desktop and 390 px (never scrolling sideways), axe (screenshots in
 * test-results/pages).
 */

const DEMO_EMAIL = "demo@shelf.test";
const DEMO_PASSWORD = "shelf-demo-password";
const PASSWORD = "correct horse battery staple";

let testDb: TestDatabase;
let sql: postgres.Sql;
let server: RunningServer;
let browser: Browser;
let dataDir: string;
let demoKey: string;
const api = jsonApi(() => server.url);
const admin = adminCli(() => ({ databaseUrl: testDb.url, dataDir }));

let suite: WebPageSuite | undefined;

beforeAll(async () => {
  suite = await openWebPageSuite({ name: "portal-pages", env: { SHELF_DEMO: "1" } });
  ({ testDb, sql, dataDir, server, browser, demoKey } = suite);
}, 240_000);

afterAll(() => suite?.close());

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** The sizes every page is read at. */
const SIZES = [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const;

function signedIn(locale: string, viewport = DESKTOP, email = DEMO_EMAIL, password = DEMO_PASSWORD) {
  return signedInContext(browser, server.url, { locale, viewport, email, password });
}

/** Every way a page is read: both languages, desktop and phone; each is checked for overflow and axe. */
async function everyWay(
  pathname: string,
  name: string,
  check: (page: Page, lang: string) => Promise<void> = async () => {},
) {
  for (const locale of ["en-US", "ko-KR"]) {
    const lang = locale.slice(0, 2);
    for (const [size, viewport] of SIZES) {
      const context = await signedIn(locale, viewport);
      const page = await context.newPage();
      const response = await page.goto(pathname);
      expect(response?.status(), `${lang} ${size} ${pathname}`).toBe(200);
      await page.waitForLoadState("networkidle");
      expect(await overflow(page), `${lang} ${size} ${pathname} scrolls sideways`).toBeLessThanOrEqual(0);
      await expectNoSeriousViolations(page, `${lang} ${size} ${pathname}`);
      await check(page, lang);
      await page.screenshot({ path: `${shots}/${lang}-${name}-${size}.png`, fullPage: true });
      await context.close();
    }
  }
}

/** The text of a PDF as Debian's poppler reads it (pdftotext -layout). */
async function pdfText(pdf: Buffer): Promise<string> {
  const file = path.join(dataDir, `invoice-${Date.now()}.pdf`);
  await fs.writeFile(file, pdf);
  return (await promisify(execFile)("pdftotext", ["-layout", file, "-"])).stdout;
}

/** Whether the element is inside the window as it is scrolled now. */
async function inView(page: Page, locator: ReturnType<Page["locator"]>): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  return box !== null && viewport !== null && box.y >= 0 && box.y + box.height <= viewport.height;
}

/** The mails to `to` with this subject in the server's outbox folder, once at least one is there. */
async function waitForMails(to: string, subject: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const folder = path.join(dataDir, "outbox");
    const names = await fs.readdir(folder).catch(() => [] as string[]);
    const mails = await Promise.all(
      names
        .filter((name) => name.endsWith(".eml"))
        .map(async (name) => parseMail(await fs.readFile(path.join(folder, name), "utf8"))),
    );
    const found = mails.filter((mail) => mail.to.includes(to.toLowerCase()) && mail.subject === subject);
    if (found.length > 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

type LibraryItem = { product: { id: number; name: string } };

async function demoLibrary(): Promise<LibraryItem[]> {
  return (await api("/api/library", demoKey)).body.items;
}

describe("the product page", () => {
  it("downloads each channel's plan through a link made when pressed, the file with the sha256 the page shows", async () => {
    const items = await demoLibrary();
    let checked = 0;
    for (const item of items) {
      const plan = await api(`/api/products/${item.product.id}/install`, demoKey);
      if (plan.status !== 200) continue;
      const context = await signedIn("en-US");
      const page = await context.newPage();
      await page.goto(`/account/products/${item.product.id}`);
      expect(await page.title()).toBe(`${item.product.name} · Shelf`);
      const shown = page.getByLabel(`SHA-256 of ${plan.body.data.version}`);
      expect(await shown.inputValue()).toBe(plan.body.data.sha256);
      const link = page.getByRole("link", { name: `Download ${plan.body.data.version}` });
      // Not a signed link, which would be dead minutes after the page was made: one is made when it is pressed.
      const href = (await link.getAttribute("href")) as string;
      expect(href).toBe(
        `/account/products/${item.product.id}/download?channel=stable&version=${encodeURIComponent(plan.body.data.version)}`,
      );
      const file = await context.request.get(href, { maxRedirects: 0 });
      expect(file.status()).toBe(303);
      const signed = new URL(file.headers().location as string);
      expect(signed.pathname).toMatch(/^\/distribution\/v1\/files\//);
      const fetched = await context.request.get(signed.toString());
      const body = await fetched.body();
      expect(body.length).toBe(plan.body.data.size);
      expect(createHash("sha256").update(body).digest("hex")).toBe(plan.body.data.sha256);
      // The browser's own download of the button gives the same bytes.
      const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
      const saved = await fs.readFile((await download.path()) as string);
      expect(createHash("sha256").update(saved).digest("hex")).toBe(plan.body.data.sha256);
      await context.close();
      checked += 1;
      if (checked === 2) break;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("offers the stable build first, and the beta, alpha and development builds behind a quieter choice", async () => {
    const items = await demoLibrary();
    const channels = await Promise.all(
      items.map(async (item) => {
        const plans = await Promise.all(
          ["stable", "beta", "dev"].map((channel) =>
            api(`/api/products/${item.product.id}/install?channel=${channel}`, demoKey),
          ),
        );
        return { item, versions: new Set(plans.filter((p) => p.status === 200).map((p) => p.body.data.version)) };
      }),
    );
    const { item } = channels.find((entry) => entry.versions.size >= 3) as (typeof channels)[number];
    await everyWay(`/account/products/${item.product.id}`, "product-channels", async (page, lang) => {
      const section = page.locator("#downloads").locator("..");
      const buttons = section.locator("a.button");
      // Only the stable build is a main button, and it comes first; the others are hidden until asked for.
      expect(await section.locator("a.button:not(.secondary)").count()).toBe(1);
      expect(await buttons.first().getAttribute("href")).toContain("channel=stable");
      const others = section.locator("details.other-builds");
      expect(await others.getAttribute("open")).toBeNull();
      expect(await others.locator("a.button").first().isVisible()).toBe(false);
      await others.locator("summary").click();
      expect(await others.locator("a.button.secondary").count()).toBeGreaterThanOrEqual(2);
      expect(await others.locator("summary").textContent()).toContain(lang === "ko" ? "다른 빌드" : "Other builds");
    });
  });

  it("gives a browser that opens an expired download link a page with the way back to the product", async () => {
    let item: LibraryItem | undefined;
    let plan: Awaited<ReturnType<typeof api>> | undefined;
    for (item of await demoLibrary()) {
      plan = await api(`/api/products/${item.product.id}/install`, demoKey);
      if (plan.status === 200) break;
    }
    if (!item || plan?.status !== 200) throw new Error("No demo product has a download.");
    const expired = await expiredLinkLike(plan.body.data.download_url, dataDir);
    for (const [locale, title, back] of [
      ["en-US", "This download link has expired", "Back to the product"],
      ["ko-KR", "다운로드 링크가 만료되었습니다", "제품으로 돌아가기"],
    ] as const) {
      for (const [size, viewport] of SIZES) {
        const context = await signedIn(locale, viewport);
        const page = await context.newPage();
        const response = await page.goto(expired);
        expect(response?.status()).toBe(403);
        expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(title);
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `${shots}/${locale.slice(0, 2)}-download-expired-${size}.png`, fullPage: true });
        const way = page.getByRole("link", { name: back });
        expect(new URL((await way.getAttribute("href")) as string).pathname).toBe(
          `/account/products/${item.product.id}`,
        );
        await way.click();
        // The account pages' own address (SHELF_BASE_URL), where the session may first ask to sign in.
        await page.waitForURL(
          (url) =>
            url.href.includes(`products%2F${item?.product.id}`) ||
            url.pathname === `/account/products/${item?.product.id}`,
        );
        await context.close();
      }
    }
  });

  it("blocks a device from the page, and its next license check is refused", async () => {
    const items = await demoLibrary();
    const activated = await api("/api/device/bulk-activate", demoKey, { method: "POST", body: {} });
    const productKey = activated.body.keys[0] as { key: string; product_id: number };
    recordSecret(productKey.key);
    const product = items.find((item) => item.product.id === productKey.product_id) as LibraryItem;
    const check = () =>
      api("/api/license/check", productKey.key, {
        method: "POST",
        body: { product_id: product.product.id, device_id: "BLOCK-ME-1", device_name: "Kitchen laptop" },
      });
    const before = await check();
    expect(before.body).toMatchObject({ licensed: true, code: "valid" });

    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto(`/account/products/${product.product.id}`);
    const row = page.getByRole("row").filter({ hasText: "Kitchen laptop" });
    await row.getByRole("button", { name: "Block" }).click();
    await page.getByRole("dialog", { name: "Block Kitchen laptop?" }).getByRole("button", { name: "Block" }).click();
    await page.getByRole("row").filter({ hasText: "Kitchen laptop" }).waitFor({ state: "detached" });
    await context.close();

    const after = await check();
    expect(after.body).toMatchObject({ licensed: false, code: "device_revoked" });
  });

  it("ticks a setup step through the same setup-progress write as the API", async () => {
    const items = await demoLibrary();
    for (const item of items) {
      const progress = await api(`/api/products/${item.product.id}/setup-progress`, demoKey);
      if (progress.body.total_count === 0) continue;
      const context = await signedIn("en-US");
      const page = await context.newPage();
      await page.goto(`/account/products/${item.product.id}`);
      const first = progress.body.completed_step_indexes.includes(0) ? "Mark step 1 not done" : "Mark step 1 done";
      await page.getByRole("button", { name: first }).click();
      const flipped = first.endsWith("not done") ? "Mark step 1 done" : "Mark step 1 not done";
      await page.getByRole("button", { name: flipped }).waitFor();
      const after = await api(`/api/products/${item.product.id}/setup-progress`, demoKey);
      expect(after.body.completed_step_indexes.includes(0)).toBe(!progress.body.completed_step_indexes.includes(0));
      await context.close();
      return;
    }
    throw new Error("No demo product has setup steps.");
  });

  it("shows a product whose access ended with that state and the way to renew, never Page not found", async () => {
    const [ended] = await sql<{ id: number; name: string }[]>`
      select p.id, p.name from products p join entitlements e on e.product_id = p.id
      join accounts a on a.id = e.account_id
      where a.email = ${DEMO_EMAIL} and e.access_expires_at < now() limit 1`;
    expect(ended).toBeDefined();
    const { id, name } = ended as { id: number; name: string };
    await everyWay(`/account/products/${id}`, "product-ended", async (page, lang) => {
      expect(await page.title()).toBe(`${name} · Shelf`);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(name);
      // Renew leads to the seller's page for the product (product:update --purchase-url), never to a page without it.
      const renew = page.getByRole("link", { name: lang === "ko" ? "갱신하기" : "Renew", exact: true });
      expect(await renew.getAttribute("href")).toMatch(/^https:\/\/shelf\.test\/store\/[a-z-]+$/);
      expect(
        await page
          .locator("main")
          .getByRole("link", { name: /Billing|결제에서/ })
          .count(),
      ).toBe(0);
    });
    // Without a purchase URL the page says whom to ask, and offers no button.
    await admin("product:update", "--id", String(id), "--purchase-url", "none");
    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto(`/account/products/${id}`);
    expect(await page.locator("main").getByRole("link", { name: "Renew" }).count()).toBe(0);
    expect(await page.locator("main").textContent()).toContain("To renew, write to the seller");
    await context.close();
    await admin("product:update", "--id", String(id), "--purchase-url", `https://shelf.test/store/ended-${id}`);
  });

  it("lists the catalog with the API's prices, each product with its page, and Buy where the seller sells it", async () => {
    const { products } = (await api("/api/products", demoKey)).body as {
      products: {
        id: number;
        name: string;
        entitled: boolean;
        unit_price_cents: number;
        currency: string;
        purchase_url: string | null;
      }[];
    };
    // One the demo account never held (an ended one has the renewal page instead).
    const held = await sql<{ product_id: number }[]>`select e.product_id from entitlements e
      join accounts a on a.id = e.account_id where a.email = ${DEMO_EMAIL}`;
    const notHeld = products.find(
      (product) => product.purchase_url && !held.some((row) => row.product_id === product.id),
    ) as (typeof products)[number];
    expect(notHeld).toBeDefined();
    await everyWay("/catalog", "catalog", async (page, lang) => {
      const cards = page.locator("main ul.cards > li");
      expect(await cards.count()).toBe(products.length);
      for (const product of products) {
        const card = cards.filter({ has: page.getByRole("link", { name: product.name, exact: true }) });
        expect(await card.getByRole("link", { name: product.name, exact: true }).getAttribute("href")).toBe(
          `/account/products/${product.id}`,
        );
        const price = new Intl.NumberFormat(lang, { style: "currency", currency: product.currency }).format(
          product.unit_price_cents / 100,
        );
        expect(await card.textContent()).toContain(
          product.unit_price_cents === 0 ? (lang === "ko" ? "무료" : "Free") : price,
        );
      }
      const buy = page.getByRole("link", { name: lang === "ko" ? `${notHeld.name} 구매하기` : `Buy ${notHeld.name}` });
      expect(await buy.getAttribute("href")).toBe(notHeld.purchase_url);
    });
    // A product the account does not hold has a page: what it is, its price and where to buy it.
    await everyWay(`/account/products/${notHeld.id}`, "product-offered", async (page, lang) => {
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(notHeld.name);
      const buy = page.locator("main").getByRole("link", { name: lang === "ko" ? "구매하기" : "Buy", exact: true });
      expect(await buy.getAttribute("href")).toBe(notHeld.purchase_url);
      expect(await page.locator("#downloads").count()).toBe(0);
    });
  });

  it("reads well in both languages at desktop and phone width", async () => {
    const items = await demoLibrary();
    const withMcp = (await api("/api/library", demoKey)).body.items.find(
      (item: { mcp_server: unknown }) => item.mcp_server !== null,
    );
    await everyWay(`/account/products/${(withMcp ?? items[0]).product.id}`, "product", async (page, lang) => {
      if (lang === "ko") {
        // Product names, manuals and notes are the seller's text; the page's own words are Korean.
        const text = (await page.locator("main").textContent()) ?? "";
        expect(text).toContain("다운로드");
        expect(text).not.toMatch(/\b(Downloads|Block|Copy|Seats|Devices on this license)\b/);
      }
    });
  });
});

describe("billing", () => {
  it("cancels a subscription at period end and resumes it, as the API then says", async () => {
    const subscribed = async () =>
      (await api("/api/subscriptions", demoKey)).body.subscriptions.find(
        (subscription: { is_pass: boolean }) => !subscription.is_pass,
      );
    expect(await subscribed()).toMatchObject({ action: "cancel", cancel_at_period_end: false });
    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto("/account/subscriptions");
    expect(page.url()).toMatch(/\/account\/billing#subscriptions$/);
    await page.getByRole("button", { name: "Cancel subscription" }).click();
    await page
      .getByRole("dialog", { name: "Cancel at the end of this period?" })
      .getByRole("button", { name: "Cancel subscription" })
      .click();
    await page.getByRole("button", { name: "Resume subscription" }).waitFor();
    expect(await subscribed()).toMatchObject({ action: "resume", cancel_at_period_end: true });
    await page.getByRole("button", { name: "Resume subscription" }).click();
    await page.getByRole("button", { name: "Cancel subscription" }).waitFor();
    expect(await subscribed()).toMatchObject({ action: "cancel", cancel_at_period_end: false });
    await context.close();
  });

  it("pages the invoices as the API pages them, every invoice once, newest first", async () => {
    const fromApi: string[] = [];
    let cursor: number | null = null;
    do {
      const page = await api(`/api/invoices?limit=5${cursor === null ? "" : `&after=${cursor}`}`, demoKey);
      fromApi.push(...page.body.invoices.map((invoice: { number: string }) => invoice.number));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(fromApi.length).toBeGreaterThan(5);

    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto("/account/billing");
    const shown: string[] = [];
    for (;;) {
      shown.push(...(await page.locator("#invoices ~ .table-wrap tbody tr td:first-child code").allTextContents()));
      const older = page.getByRole("link", { name: "Older invoices →" });
      if ((await older.count()) === 0) break;
      await older.click();
      await page.waitForLoadState("load");
    }
    expect(shown).toEqual(fromApi);
    await context.close();
  });

  it("never shows another account's orders or invoices, nor a product that is not for sale", async () => {
    const email = `other-${Date.now()}@example.test`;
    const other = await browser.newContext({ locale: "en-US", baseURL: server.url });
    const signUp = await other.newPage();
    await signUp.goto("/sign-up");
    await signUp.getByLabel("Email").fill(email);
    await signUp.getByLabel("Password").fill(PASSWORD);
    await signUp.locator("main").getByRole("button", { name: "Create account" }).click();
    await signUp.waitForURL(/\/account$/);
    await other.close();
    const product = await admin(
      "product:create",
      "--name",
      "Only Theirs",
      "--price-cents",
      "33000",
      "--currency",
      "KRW",
    );
    const order = await admin("order:create", "--email", email, "--product", String(product.id));
    const [invoice] = await sql<{ number: string }[]>`select number from invoices where order_id = ${order.id}`;
    expect(invoice?.number).toMatch(/^INV-/);

    const demo = await signedIn("en-US");
    const page = await demo.newPage();
    await page.goto("/account/billing");
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("Orders");
    expect(text).not.toContain(order.number);
    expect(text).not.toContain("Only Theirs");
    const everyInvoice: string[] = [];
    for (;;) {
      everyInvoice.push(...(await page.locator("#invoices ~ .table-wrap code").allTextContents()));
      const older = page.getByRole("link", { name: "Older invoices →" });
      if ((await older.count()) === 0) break;
      await older.click();
      await page.waitForLoadState("load");
    }
    expect(everyInvoice.length).toBeGreaterThan(0);
    expect(everyInvoice).not.toContain(invoice?.number);
    // Their product is in the catalog (published): its page offers it, and shows nothing of theirs.
    expect((await page.goto(`/account/products/${product.id}`))?.status()).toBe(200);
    expect(await page.locator("main").textContent()).toContain("Not in your library");
    expect(await page.locator("#downloads").count()).toBe(0);
    const hidden = await admin("product:create", "--name", "Unlisted", "--unpublished");
    expect((await page.goto(`/account/products/${hidden.id}`))?.status()).toBe(404);
    await demo.close();

    // And the other way round: their page shows their order, none of the demo's.
    const theirs = await signedIn("en-US", DESKTOP, email, PASSWORD);
    const their = await theirs.newPage();
    await their.goto("/account/billing");
    const theirText = (await their.locator("main").textContent()) ?? "";
    expect(theirText).toContain(order.number);
    const demoOrders = (await api("/api/orders", demoKey)).body.orders as { number: string }[];
    for (const demoOrder of demoOrders) expect(theirText).not.toContain(demoOrder.number);
    // A KRW total shows its VAT (10 %, included): 33,000 won is 30,000 supply and 3,000 VAT.
    expect(theirText).toMatch(/Supply amount.*30,000.*VAT \(10 %\).*3,000.*Total.*33,000/);

    // A withdrawal refused (the period ended while the form was open) says so and keeps the reason typed.
    await their.getByText("Withdraw from this order").click();
    await their.getByLabel("Reason (optional)").fill("Bought the wrong app.");
    const [{ paid_at: paidAt } = { paid_at: null }] = await sql<{ paid_at: Date | null }[]>`
      select paid_at from orders where id = ${order.id}`;
    await sql`update orders set paid_at = now() - interval '60 days' where id = ${order.id}`;
    await their.getByRole("button", { name: "Request refund" }).click();
    await their.locator("main").getByRole("alert").filter({ hasText: "can no longer be withdrawn" }).waitFor();
    expect(await their.getByLabel("Reason (optional)").inputValue()).toBe("Bought the wrong app.");
    await sql`update orders set paid_at = ${paidAt} where id = ${order.id}`;
    // A second tab, opened before the request is sent, sends it again below.
    const stale = await theirs.newPage();
    await stale.setViewportSize(PHONE);
    await stale.goto(`/account/billing#order-${order.id}`);
    await stale.locator(`#order-${order.id}`).getByText("Withdraw from this order").click();
    // Within the period, it files a refund request with support, for this order; the page comes back to the order,
    // which says so where it is in view, and offers no second request.
    await their.getByRole("button", { name: "Request refund" }).click();
    const record = their.locator(`#order-${order.id}`);
    await record.getByRole("status").filter({ hasText: order.number }).waitFor();
    expect(await record.getByRole("status").textContent()).toContain("A confirmation is on its way to your email.");
    expect(await inView(their, record.getByRole("status"))).toBe(true);
    expect(await record.getByText("Withdrawal requested", { exact: true }).count()).toBe(1);
    expect(await record.getByText("Withdraw from this order").count()).toBe(0);
    const later = await theirs.newPage();
    await later.goto("/account/billing");
    expect(await later.locator(`#order-${order.id}`).locator(".notice").textContent()).toMatch(
      /^You asked to withdraw from this order on [A-Z][a-z]{2} \d{1,2}, \d{4}\./,
    );
    await later.close();
    await stale.getByRole("button", { name: "Request refund" }).click();
    await stale
      .locator("main")
      .getByRole("alert")
      .filter({ hasText: "You already asked to withdraw from this order, on" })
      .waitFor();
    await stale.screenshot({ path: `${shots}/en-billing-withdrawal-again-phone.png`, fullPage: false });
    await stale.close();
    // One confirmation, written to the outbox (no SMTP server here).
    const confirmations = await waitForMails(email, `We received your withdrawal from order ${order.number}`);
    expect(confirmations).toHaveLength(1);
    const tickets = await sql<{ kind: string; summary: string; account_email: string }[]>`
      select t.kind, t.summary, a.email as account_email from support_tickets t join accounts a on a.id = t.account_id
      where t.summary like ${`%${order.number}%`}`;
    expect(tickets).toEqual([
      { kind: "refund_request", summary: `Withdrawal from order ${order.number}`, account_email: email },
    ]);

    // Cards: make another the default, then remove it (after a confirmation); never a card number typed.
    const cardRows = await sql<
      { id: number }[]
    >`insert into payment_methods (account_id, brand, last4, exp_month, exp_year, is_default)
      select id, 'visa', v.last4, 12, 2040, v.is_default from accounts,
        (values ('4242', true), ('1881', false)) as v(last4, is_default)
      where email = ${email} returning id`;
    await their.goto("/account/billing#cards");
    const cardItems = their.locator("#cards ~ ul.records > li");
    await cardItems.filter({ hasText: "1881" }).getByRole("button", { name: "Make default" }).click();
    await their.waitForFunction(() =>
      [...document.querySelectorAll("ul.records > li")].some(
        (li) => li.textContent?.includes("1881") && li.textContent.includes("Default"),
      ),
    );
    const defaults = await sql<{ last4: string }[]>`select last4 from payment_methods
      where id in ${sql(cardRows.map((row) => row.id))} and is_default`;
    expect(defaults).toEqual([{ last4: "1881" }]);
    await cardItems.filter({ hasText: "1881" }).getByRole("button", { name: "Remove card" }).click();
    await their.getByRole("dialog").getByRole("button", { name: "Remove card" }).click();
    await their.waitForFunction(() => !document.querySelector("#cards")?.parentElement?.textContent?.includes("1881"));
    const left = await sql<{ last4: string; is_default: boolean }[]>`select last4, is_default from payment_methods
      where id in ${sql(cardRows.map((row) => row.id))}`;
    expect(left).toEqual([{ last4: "4242", is_default: true }]);
    await theirs.close();
  });

  it("gives each invoice and order a printable page and a PDF with the seller, the buyer, supply value and VAT", async () => {
    const product = await admin(
      "product:create",
      "--name",
      "정리 도우미",
      "--price-cents",
      "33000",
      "--currency",
      "KRW",
    );
    const order = await admin(
      "order:create",
      "--email",
      DEMO_EMAIL,
      "--product",
      String(product.id),
      "--quantity",
      "2",
      "--discount-cents",
      "6000",
    );
    const [invoice] = await sql<{ id: number; number: string }[]>`select id, number from invoices
      where order_id = ${order.id}`;
    const { id, number } = invoice as { id: number; number: string };
    // The order's Invoice link leads to its invoice's page.
    const context = await signedIn("en-US");
    const billing = await context.newPage();
    await billing.goto(`/account/billing#order-${order.id}`);
    await billing.locator(`#order-${order.id}`).getByRole("link", { name: "Invoice", exact: true }).click();
    await billing.waitForURL(new RegExp(`/account/billing/invoices/${id}$`));
    await context.close();
    await everyWay(`/account/billing/invoices/${id}`, "invoice", async (page, lang) => {
      const text = (await page.locator("main").textContent()) ?? "";
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
        lang === "ko" ? `청구서 ${number}` : `Invoice ${number}`,
      );
      expect(text).toContain(lang === "ko" ? "셸프 데모 (예시)" : "Shelf Demo (sample)");
      expect(text).toContain(DEMO_EMAIL);
      expect(text).toMatch(lang === "ko" ? /공급가액₩54,545/ : /Supply value₩54,545/);
      expect(text).toMatch(lang === "ko" ? /부가세 \(10%\)₩5,455/ : /VAT \(10 %\)₩5,455/);
      expect(text).toMatch(lang === "ko" ? /합계₩60,000/ : /Total₩60,000/);
      expect(await page.locator(".invoice-lines tbody td.number").allTextContents()).toEqual([
        "2",
        "₩33,000",
        "₩66,000",
      ]);
      const pdfLink = page.getByRole("link", { name: lang === "ko" ? "PDF 다운로드" : "Download PDF" });
      expect(await pdfLink.getAttribute("href")).toBe(`/account/billing/invoices/${id}.pdf`);
      // As the browser asks for it when the link is followed: in the page's language.
      const pdf = await page
        .context()
        .request.get(`/account/billing/invoices/${id}.pdf`, { headers: { "accept-language": lang } });
      expect(pdf.status()).toBe(200);
      expect(pdf.headers()["content-type"]).toBe("application/pdf");
      const extracted = await pdfText(await pdf.body());
      expect(extracted).toContain(lang === "ko" ? `청구서 ${number}` : `Invoice ${number}`);
      // The line is its quantity at the unit price; the discount under the lines takes it to the total.
      expect(extracted).toMatch(/정리 도우미\s+2\s+₩33,000\s+₩66,000/);
      expect(extracted).toMatch(lang === "ko" ? /할인\s+-₩6,000/ : /Discount\s+-₩6,000/);
      expect(extracted).toMatch(lang === "ko" ? /공급가액\s+₩54,545/ : /Supply value\s+₩54,545/);
      expect(extracted).toMatch(lang === "ko" ? /부가세 \(10%\)\s+₩5,455/ : /VAT \(10 %\)\s+₩5,455/);
    });
    // Another account's invoice is not there, nor its PDF.
    const email = `invoices-${Date.now()}@example.test`;
    await admin("account:create", "--email", email, "--password", PASSWORD);
    const other = await signedIn("en-US", DESKTOP, email, PASSWORD);
    const page = await other.newPage();
    expect((await page.goto(`/account/billing/invoices/${id}`))?.status()).toBe(404);
    expect((await other.request.get(`/account/billing/invoices/${id}.pdf`)).status()).toBe(404);
    expect((await page.goto(`/account/billing/orders/${order.id}/invoice`))?.status()).toBe(404);
    await other.close();
  });

  it("reads well in both languages at desktop and phone width, Korean without English labels", async () => {
    await everyWay("/account/billing", "billing", async (page, lang) => {
      const text = (await page.locator("main").textContent()) ?? "";
      if (lang === "ko") {
        expect(text).toContain("청구서");
        expect(text).not.toMatch(/\b(Orders|Invoices|Subscriptions|Total|Paid|Active|Receipt)\b/);
      } else {
        expect(text).toContain("Invoices");
      }
    });
  });
});

/** The device client's side of device sign-in: form-encoded posts, as RFC 8628 clients send them. */
async function deviceEndpoint(pathname: string, fields: Record<string, string>) {
  const response = await fetch(`${server.url}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  return { status: response.status, body: (await response.json()) as any };
}

describe("keys and devices", () => {
  it("shows a key's last use with its client address, and keeps a revoked key listed behind a toggle", async () => {
    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto("/settings/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("Nightly script");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.getByLabel("The new key").inputValue();
    recordSecret(key);
    expect((await api("/api/library", key)).status).toBe(200);
    await page.goto("/settings/api-keys");
    const row = page.getByRole("row").filter({ hasText: "Nightly script" });
    expect(await row.textContent()).toMatch(/from (::ffff:127\.0\.0\.1|127\.0\.0\.1|::1)/);

    await row.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await row.waitFor({ state: "detached" });
    await page.getByRole("link", { name: /^Show revoked and expired keys \(\d+\)$/ }).click();
    const ended = page.locator("table.ended").getByRole("row").filter({ hasText: "Nightly script" });
    expect(await ended.textContent()).toMatch(/Revoked.*\d{4}.*Last used.*from (::ffff:127\.0\.0\.1|127\.0\.0\.1|::1)/);
    expect((await api("/api/library", key)).status).toBe(401);
    await context.close();
  });

  it("names the full scope and links to its keys when device sign-in finds no slot, ends that sign-in for the device, and asks no code once approved", async () => {
    const context = await signedIn("en-US");
    const page = await context.newPage();
    await page.goto("/settings/api-keys");
    const accountSlots = page.getByTestId("slots-account");
    // Fill the account-wide slots with keys made through the form.
    for (let made = 0; !(await accountSlots.textContent())?.includes("Full"); made += 1) {
      expect(made).toBeLessThan(3);
      await page.getByLabel("Name", { exact: true }).fill(`Filler ${made}`);
      await page.getByRole("button", { name: "Create key" }).click();
      recordSecret(await page.getByLabel("The new key").inputValue());
      await page.goto("/settings/api-keys");
    }
    const code = await deviceEndpoint("/api/device-sign-in/code", { client_id: "shelf-cli", device_name: "studio" });
    expect(code.status).toBe(200);
    await page.goto(`/device?user_code=${code.body.user_code}`);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Approve" }).click();
    const alert = page.locator("main").getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Every slot of Account-wide is taken");
    expect(await alert.textContent()).toContain("This sign-in has ended, and the device was told why");
    // The device's next poll hears why at once, rather than waiting out the code.
    const ended = await deviceEndpoint("/api/device-sign-in/token", {
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: code.body.device_code,
      client_id: "shelf-cli",
    });
    expect(ended.body).toMatchObject({ error: "access_denied", reason: "api_key_limit_reached" });
    const link = alert.getByRole("link", { name: "See the keys of Account-wide" });
    expect(await link.getAttribute("href")).toBe("/settings/api-keys?scope=account#keys-title");
    await link.click();
    await page.getByRole("heading", { name: "Keys of Account-wide" }).waitFor();
    const filler = page.getByRole("row").filter({ hasText: "Filler 0" });
    await filler.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await filler.waitFor({ state: "detached" });

    // A slot is free: the device starts again, and its new code is approved.
    const again = await deviceEndpoint("/api/device-sign-in/code", { client_id: "shelf-cli", device_name: "studio" });
    await page.goto(`/device?user_code=${again.body.user_code}`);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Device connected" }).waitFor();
    const main = (await page.locator("main").textContent()) ?? "";
    expect(main).not.toContain("Enter the code");
    expect(await page.getByLabel("Code").count()).toBe(0);
    await context.close();
  });

  it("reads well in both languages at desktop and phone width, revoked keys shown", async () => {
    await everyWay("/settings/api-keys?ended=1", "keys-ended");
  });
});
