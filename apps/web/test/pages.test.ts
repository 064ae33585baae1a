import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "./server";

let testDb: TestDatabase;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startServer({ DATABASE_URL: testDb.url });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await testDb?.drop();
});

describe("API reference page", () => {
  it("lists every endpoint with its method, access rule and responses", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs/api`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("API reference");
    const library = page.locator("#library-get");
    expect(await library.locator("h3").textContent()).toBe("GET /api/library");
    expect(await library.locator(".access").textContent()).toBe("Ability: products.read");
    expect(await page.locator("#products-detail .access").textContent()).toContain("entitled to the product");
    expect(await page.locator(".operation").count()).toBeGreaterThanOrEqual(7);
    expect(await page.locator("#schema-LibraryApiItemData").textContent()).toContain("access_source");
    await page.getByRole("link", { name: "/api/openapi.json" }).click();
    await page.waitForURL(/openapi\.json$/);
    expect(await page.textContent("body")).toContain('"openapi":"3.1.0"');
    await page.close();
  });
});
