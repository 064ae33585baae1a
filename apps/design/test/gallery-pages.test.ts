import fs from "node:fs/promises";
import path from "node:path";
import { launchChromium } from "@shelf/api/testing/apps";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { seriousViolations } from "@shelf/web-kit/testing/axe";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designDir, type RunningServer, startDesignServer } from "./server";

/**
 * The gallery's pages in Debian's Chromium against the production build, on the demo gallery (the replayed run the
 * demo ships): the grid and its facets against the API's answer for the same address, search in both languages,
 * screens and their variants by keyboard, an app's flow, the patterns and the taxonomy, at desktop and phone width,
 * in English and Korean, with axe-core. Screenshots of every page are kept in test-results/pages.
 */

const shots = path.join(designDir, "test-results/pages");

let testDb: TestDatabase;
let server: RunningServer;
let browser: Browser;

type Facet = { value: string; label: string; count: number };
type ScreensAnswer = {
  items: { id: number; title: string | null; app: { id: number } }[];
  total: number;
  facets: Record<string, Facet[]>;
};

const api = async <T>(target: string): Promise<T> => {
  const response = await fetch(`${server.url}${target}`);
  expect(response.status, target).toBe(200);
  return (await response.json()) as T;
};

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startDesignServer({ DATABASE_URL: testDb.url, SHELF_DEMO: "1" });
  browser = await launchChromium();
  await fs.mkdir(shots, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await testDb?.drop();
});

/** A page that records its console errors and any request to another origin. */
async function open(context: BrowserContext, target: string) {
  const page = await context.newPage();
  const errors: string[] = [];
  const elsewhere: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(server.url) && !url.startsWith("data:")) elsewhere.push(url);
  });
  const response = await page.goto(`${server.url}${target}`);
  return { page, response, errors, elsewhere };
}

/** Keys work once the page has hydrated (`markKeysReady`); a key pressed before that does nothing. */
async function keysReady(page: Page): Promise<void> {
  await page.waitForSelector('html[data-keys="ready"]', { state: "attached" });
}

/** The grid's facet counts as the page shows them: filter name -> value label -> count. */
async function shownFacets(page: Page): Promise<Record<string, Record<string, number>>> {
  return page.evaluate(() => {
    const facets: Record<string, Record<string, number>> = {};
    for (const section of document.querySelectorAll<HTMLElement>(".facet")) {
      const name = section.getAttribute("aria-labelledby")?.replace("facet-", "") ?? "";
      facets[name] = {};
      for (const link of section.querySelectorAll<HTMLAnchorElement>("a")) {
        const value = new URL(link.href).searchParams;
        const label = link.querySelector(".facet-label")?.textContent ?? "";
        facets[name][`${label}`] = Number(link.querySelector(".count")?.textContent);
        void value;
      }
    }
    return facets;
  });
}

const cardIds = (page: Page) =>
  page.$$eval(".screen-grid .screen-link", (links) => links.map((link) => (link as HTMLAnchorElement).pathname));

describe("the gallery grid", () => {
  it("shows every screen with the API's total and facet counts, and a facet narrows it with the state in the URL", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const { page, response, errors, elsewhere } = await open(context, "/screens");
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(response?.headers()["x-content-type-options"]).toBe("nosniff");
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    const all = await api<ScreensAnswer>("/api/v1/screens");
    expect(all.total).toBeGreaterThan(0);
    expect(await page.locator(".gallery-head p").textContent()).toBe(`${all.total} screens`);
    expect(await cardIds(page)).toEqual(all.items.map((item) => `/screens/${item.id}`));
    // Every facet the API gives is shown with the same counts (labels of the translated filters differ).
    const shown = await shownFacets(page);
    for (const name of ["kind", "patterns", "components", "elements", "fonts", "colors", "app"]) {
      const expected = Object.fromEntries(all.facets[name]?.map((facet) => [facet.label, facet.count]) ?? []);
      expect(shown[name] ?? {}, name).toEqual(expected);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${shots}/gallery-grid-en.png`, fullPage: true });

    // A pattern: the address carries it, the list and the counts are the API's for that address.
    const pattern = all.facets.patterns?.[0] as Facet;
    await page.locator(`#facet-patterns ~ ul a`, { hasText: pattern.label }).first().click();
    await page.waitForURL((url) => url.searchParams.getAll("patterns").includes(pattern.value));
    const filtered = await api<ScreensAnswer>(`/api/v1/screens?patterns=${encodeURIComponent(pattern.value)}`);
    expect(filtered.total).toBe(pattern.count);
    expect(await page.locator(".gallery-head p").textContent()).toContain(String(pattern.count));
    expect(await cardIds(page)).toEqual(filtered.items.map((item) => `/screens/${item.id}`));
    const narrowed = await shownFacets(page);
    expect(narrowed.kind).toEqual(Object.fromEntries(filtered.facets.kind?.map((f) => [f.label, f.count]) ?? []));

    // The link is the view: a fresh browser at the same address sees the same screens.
    const shared = page.url();
    const other = await browser.newContext({ locale: "en-US" });
    const again = await open(other, new URL(shared).pathname + new URL(shared).search);
    expect(await cardIds(again.page)).toEqual(await cardIds(page));
    await other.close();
    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it("finds screens by English and Korean words, as the API does", async () => {
    const all = await api<ScreensAnswer>("/api/v1/screens?lang=ko");
    let korean: string | undefined;
    for (const item of all.items) {
      const { screen } = await api<{ screen: { variants: { lang: string; title: string | null }[] } }>(
        `/api/v1/screens/${item.id}`,
      );
      korean = screen.variants
        .filter((variant) => variant.lang === "ko")
        .map((variant) => /[가-힣]{2,}/.exec(variant.title ?? "")?.[0])
        .find(Boolean);
      if (korean) break;
    }
    expect(korean, "a Korean word in the demo's titles").toBeTruthy();
    const english = /[A-Za-z]{4,}/.exec(all.items.map((item) => item.title ?? "").join(" "))?.[0] ?? "shelf";
    for (const [locale, word] of [
      ["en-US", english],
      ["ko-KR", korean as string],
    ] as const) {
      const context = await browser.newContext({ locale });
      const { page, errors } = await open(context, "/screens");
      await page.getByRole("searchbox").fill(word);
      await page.getByRole("searchbox").press("Enter");
      await page.waitForURL((url) => url.searchParams.get("q") === word);
      const answer = await api<ScreensAnswer>(`/api/v1/screens?q=${encodeURIComponent(word)}`);
      expect(answer.total, word).toBeGreaterThan(0);
      expect(await cardIds(page), word).toEqual(answer.items.map((item) => `/screens/${item.id}`));
      expect(await page.title()).toContain(word);
      await page.screenshot({ path: `${shots}/gallery-search-${locale.slice(0, 2)}.png`, fullPage: true });
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it("says what is wrong with a name the gallery does not know (422), with a way back", async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const { page, response } = await open(context, "/screens?patterns=no-such-pattern&cols=zero");
    expect(response?.status()).toBe(422);
    const alert = page.locator(".notice[role=alert]");
    expect(await alert.textContent()).toContain("cols");
    await page.getByRole("link", { name: "Show every screen" }).click();
    await page.waitForURL(`${server.url}/screens`);
    const unknown = await open(context, "/screens?patterns=no-such-pattern");
    expect(unknown.response?.status()).toBe(422);
    expect(await unknown.page.locator(".notice[role=alert]").textContent()).toContain("patterns");
    await unknown.page.screenshot({ path: `${shots}/gallery-grid-unknown.png` });
    await context.close();
  });

  it("moves through the grid by arrow keys and opens a screen with Enter", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const { page } = await open(context, "/screens");
    await keysReady(page);
    const links = page.locator(".screen-grid .screen-link");
    await links.first().focus();
    await page.keyboard.press("ArrowRight");
    expect(await page.evaluate(() => (document.activeElement as HTMLAnchorElement).pathname)).toBe(
      await links.nth(1).evaluate((link) => (link as HTMLAnchorElement).pathname),
    );
    const columns = await page.$$eval(".screen-grid .screen-link", (all) => {
      const top = all[0]?.getBoundingClientRect().top;
      return all.filter((link) => link.getBoundingClientRect().top === top).length;
    });
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate(() => (document.activeElement as HTMLAnchorElement).pathname)).toBe(
      await links.nth(1 + columns).evaluate((link) => (link as HTMLAnchorElement).pathname),
    );
    const target = await page.evaluate(() => (document.activeElement as HTMLAnchorElement).pathname);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${server.url}${target}`);
    await context.close();
  });

  it("keeps the filters in a closed panel above the grid at phone width, beside it and open on a desktop", async () => {
    const phone = await browser.newContext({ locale: "en-US", viewport: { width: 390, height: 844 } });
    const { page } = await open(phone, "/screens");
    const panel = page.locator("details.facets-panel");
    const grid = page.locator("#screen-grid");
    expect(await panel.getAttribute("open")).toBeNull();
    expect(await page.locator(".facets").isVisible()).toBe(false);
    const [panelBox, gridBox] = [await panel.boundingBox(), await grid.boundingBox()];
    expect((panelBox?.y ?? 0) + (panelBox?.height ?? 0)).toBeLessThanOrEqual(gridBox?.y ?? 0);
    // The first cards are on the first screen, not below the filters.
    expect(gridBox?.y ?? 844).toBeLessThan(844);
    await panel.locator("> summary").click();
    const link = page.locator("#facet-patterns ~ ul a").first();
    await link.waitFor({ state: "visible" });
    await link.click();
    await page.waitForURL(/patterns=/);
    expect(await page.locator("details.facets-panel > summary").textContent()).toBe("Filters (1)");
    await phone.close();
    const desktop = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const wide = await open(desktop, "/screens");
    expect(await wide.page.locator("details.facets-panel > summary").isVisible()).toBe(false);
    expect(await wide.page.locator("#facet-patterns ~ ul a").first().isVisible()).toBe(true);
    const [facetsBox, cardsBox] = [
      await wide.page.locator(".facets").boundingBox(),
      await wide.page.locator("#screen-grid").boundingBox(),
    ];
    expect((facetsBox?.x ?? 0) + (facetsBox?.width ?? 0)).toBeLessThanOrEqual(cardsBox?.x ?? 0);
    await desktop.close();
  });

  it("comes back to the same scroll position after opening a screen, at phone width", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 390, height: 800 } });
    const { page } = await open(context, "/screens");
    const card = page.locator(".screen-grid .screen-link").nth(8);
    await card.scrollIntoViewIfNeeded();
    await page.mouse.wheel(0, 200);
    await page.waitForTimeout(200);
    const before = await page.evaluate(() => window.scrollY);
    expect(before).toBeGreaterThan(500);
    await card.click();
    await page.waitForURL(/\/screens\/\d+/);
    await page.goBack();
    await page.waitForURL(`${server.url}/screens`);
    await page.waitForFunction((y) => Math.abs(window.scrollY - y) < 40, before, { timeout: 10_000 });
    await context.close();
  });
});

describe("a screen, an app's flow, the patterns and the taxonomy", () => {
  it("switches a screen's variants by arrow keys and by number keys, the choice in the address", async () => {
    const all = await api<ScreensAnswer>("/api/v1/screens");
    const detail = async (id: number) =>
      (await api<{ screen: { variants: { id: number }[] } }>(`/api/v1/screens/${id}`)).screen;
    let chosen: { id: number; variants: { id: number }[] } | undefined;
    for (const item of all.items) {
      const screen = await detail(item.id);
      if (screen.variants.length >= 3) {
        chosen = { id: item.id, variants: screen.variants };
        break;
      }
    }
    expect(chosen, "a demo screen with three variants").toBeTruthy();
    const screen = chosen as { id: number; variants: { id: number }[] };
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const { page, errors } = await open(context, `/screens/${screen.id}`);
    await keysReady(page);
    const selected = () => page.getAttribute('[role="tab"][aria-selected="true"]', "id");
    expect(await selected()).toBe(`variant-tab-${screen.variants[0]?.id}`);
    await page.locator('[role="tab"][aria-selected="true"]').focus();
    await page.keyboard.press("ArrowRight");
    expect(await selected()).toBe(`variant-tab-${screen.variants[1]?.id}`);
    expect(new URL(page.url()).searchParams.get("variant")).toBe(String(screen.variants[1]?.id));
    await page.keyboard.press("3");
    expect(await selected()).toBe(`variant-tab-${screen.variants[2]?.id}`);
    const image = page.locator(".variant-full img");
    expect(await image.getAttribute("src")).toContain(`/variants/${screen.variants[2]?.id}/image`);
    expect(await page.locator(".evidence dd").first().textContent()).toMatch(/^\d+$/);
    // A tag leads into the grid filtered by it.
    const tag = page.locator(".tags .tag-list a").first();
    const href = (await tag.getAttribute("href")) as string;
    expect(href).toMatch(/^\/screens\?(patterns|components|elements|colors|fonts)=/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${shots}/gallery-screen-en.png`, fullPage: true });
    // The chosen variant is in the link.
    const shared = await open(context, `/screens/${screen.id}?variant=${screen.variants[2]?.id}`);
    expect(await shared.page.getAttribute('[role="tab"][aria-selected="true"]', "id")).toBe(
      `variant-tab-${screen.variants[2]?.id}`,
    );
    expect(errors).toEqual([]);
    const missing = await open(context, "/screens/999999");
    expect(missing.response?.status()).toBe(404);
    const malformed = await open(context, "/screens/abc");
    expect(malformed.response?.status()).toBe(404);
    await context.close();
  });

  it("walks an app's flow step by step with the arrow keys", async () => {
    const all = await api<ScreensAnswer>("/api/v1/screens");
    let appId = 0;
    let flow: { id: number; steps: unknown[] } | undefined;
    for (const id of new Set(all.items.map((item) => item.app.id))) {
      const { app } = await api<{ app: { flows: { id: number; steps: unknown[] }[] } }>(`/api/v1/apps/${id}`);
      flow = app.flows.find((candidate) => candidate.steps.length >= 2);
      appId = id;
      if (flow) break;
    }
    expect(flow, "a demo flow of two steps or more").toBeTruthy();
    const context = await browser.newContext({ locale: "ko-KR", viewport: { width: 1280, height: 900 } });
    const { page, errors } = await open(context, `/apps/${appId}?flow=${flow?.id}`);
    expect(await page.locator(".flow-position").textContent()).toContain("1단계");
    await keysReady(page);
    await page.keyboard.press("ArrowRight");
    await page.waitForURL((url) => url.searchParams.get("step") === "2");
    expect(await page.locator(".flow-position").textContent()).toContain("2단계");
    // The step links are plain links: each step is a new document, which must hydrate before a key works.
    await keysReady(page);
    await page.keyboard.press("ArrowLeft");
    await page.waitForURL((url) => url.searchParams.get("step") === "1");
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${shots}/gallery-app-ko.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("has every gallery page axe-clean and without sideways scrolling at 390 px, in English and Korean", async () => {
    const all = await api<ScreensAnswer>("/api/v1/screens");
    const first = all.items[0] as ScreensAnswer["items"][number];
    for (const locale of ["en-US", "ko-KR"] as const) {
      const lang = locale.slice(0, 2);
      const context = await browser.newContext({ locale, viewport: { width: 390, height: 844 } });
      for (const [name, target] of [
        ["grid", "/screens"],
        ["screen", `/screens/${first.id}`],
        ["app", `/apps/${first.app.id}`],
        ["patterns", "/patterns"],
        ["taxonomy", "/taxonomy"],
      ] as const) {
        const { page, response, errors, elsewhere } = await open(context, target);
        expect(response?.status(), target).toBe(200);
        expect(await page.getAttribute("html", "lang")).toBe(lang);
        expect(
          await page.evaluate(() => document.scrollingElement?.scrollWidth),
          `${lang} ${target}`,
        ).toBeLessThanOrEqual(390);
        expect(await seriousViolations(page), `${lang} ${target}`).toEqual([]);
        expect(errors, `${lang} ${target}`).toEqual([]);
        expect(elsewhere, `${lang} ${target}`).toEqual([]);
        await page.screenshot({ path: `${shots}/gallery-${name}-${lang}-390.png`, fullPage: true });
        await page.close();
      }
      await context.close();
    }
  });

  it("lists the patterns and the taxonomy with the API's counts, each a link into the grid", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const { page } = await open(context, "/patterns");
    const patterns = await api<{ items: { slug: string; label: string; count: number }[] }>("/api/v1/patterns");
    expect(await page.locator(".term-list > li").count()).toBe(patterns.items.length);
    const firstPattern = patterns.items[0] as { slug: string; label: string; count: number };
    await page.getByRole("link", { name: firstPattern.label, exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get("patterns") === firstPattern.slug);
    expect(await page.locator(".gallery-head p").textContent()).toContain(String(firstPattern.count));
    const taxonomy = await open(context, "/taxonomy");
    const kinds = await api<{ taxonomy: Record<string, unknown[]> }>("/api/v1/taxonomy");
    for (const [kind, list] of Object.entries(kinds.taxonomy)) {
      const id = {
        page_types: "page_type",
        patterns: "pattern",
        elements: "element",
        components: "component",
        fonts: "font",
        colors: "color",
      }[kind];
      expect(await taxonomy.page.locator(`#${id} .tag-list li`).count(), kind).toBe(list.length);
    }
    await taxonomy.page.screenshot({ path: `${shots}/gallery-taxonomy-en.png`, fullPage: true });
    await context.close();
  });
});
