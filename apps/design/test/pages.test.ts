import path from "node:path";
import { pageSuite, watchPage } from "@shelf/api/testing/apps";
import { openApiReference } from "@shelf/web-kit/testing/api-reference";
import { seriousViolations } from "@shelf/web-kit/testing/axe";
import { describe, expect, it } from "vitest";
import { designDir, startDesignServer } from "./server";

/** The design app's pages in Debian's Chromium against the production build (screenshots in test-results/pages). */

const shots = path.join(designDir, "test-results/pages");

const suite = pageSuite(startDesignServer, shots);

describe("the API reference page", () => {
  it("renders one reference of the design host's live document, from this host only, with no console error", async () => {
    const { page, seen } = await openApiReference(suite, {
      title: "Design API reference · Shelf",
      heading: "Shelf design host: agent API",
    });
    await page.locator("section", { hasText: "/api/agent/docs/{slug}" }).first().waitFor();
    expect(await page.content()).not.toContain("/api/library");
    expect(seen.elsewhere()).toEqual([]);
    expect(seen.errors).toEqual([]);
    await page.screenshot({ path: `${shots}/design-docs-api.png` });
    await page.close();
  });
});

describe("the home page", () => {
  it("has its landmarks and headings, and no serious axe-core violation, in English and in Korean", async () => {
    for (const [locale, lang, title] of [
      ["en-US", "en", "The design host"],
      ["ko-KR", "ko", "디자인 호스트"],
    ] as const) {
      const context = await suite.browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const seen = watchPage(page, suite.server.url);
      await page.goto(`${suite.server.url}/`);
      expect(await page.getAttribute("html", "lang")).toBe(lang);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(title);
      expect(await page.getByRole("heading", { level: 2 }).count()).toBe(3);
      expect(await page.getByRole("banner").count()).toBe(1);
      expect(await page.getByRole("navigation").count()).toBe(1);
      expect(await page.getByRole("main").count()).toBe(1);
      expect(await page.getByRole("contentinfo").count()).toBe(1);
      expect(await seriousViolations(page), lang).toEqual([]);
      expect(seen.errors, lang).toEqual([]);
      expect(seen.elsewhere(), lang).toEqual([]);
      await page.screenshot({ path: `${shots}/design-home-${lang}.png`, fullPage: true });
      await context.close();
    }
  });

  it("switches language with the switch, and keeps it", async () => {
    const context = await suite.browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/`);
    await page.getByRole("button", { name: "한국어" }).click();
    await page.waitForFunction(() => document.documentElement.lang === "ko");
    await page.goto(`${suite.server.url}/`);
    expect(await page.getAttribute("html", "lang")).toBe("ko");
    await context.close();
  });
});
