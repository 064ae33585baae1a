import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./browser";
import { type RunningServer, startServer } from "./server";

let testDb: TestDatabase;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startServer({ DATABASE_URL: testDb.url });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await testDb?.drop();
});

describe("API reference page", () => {
  it("renders the live OpenAPI document with Scalar from this server only, with search and curl examples", async () => {
    const page = await browser.newPage();
    const hosts = new Set<string>();
    page.on("requestfinished", (request) => hosts.add(new URL(request.url()).host));
    await page.goto(`${server.url}/docs/api`);
    expect(await page.title()).toBe("API reference · Shelf");
    await page.getByRole("heading", { name: "Shelf API" }).first().waitFor({ timeout: 30_000 });
    const library = page.locator("section", { hasText: "/api/library" }).first();
    await library.waitFor();
    expect(await page.content()).toContain("/api/device-sign-in/token");
    // Search, and request examples in curl.
    expect(await page.locator("button", { hasText: "Search" }).count()).toBeGreaterThan(0);
    expect(await page.getByText("curl", { exact: false }).count()).toBeGreaterThan(0);
    // Nothing came from another host (the CSP refuses it too).
    expect([...hosts]).toEqual([new URL(server.url).host]);
    await page.close();
  });

  it("serves the renderer's bundle with a validator, and a 304 for a cached copy", async () => {
    const first = await fetch(`${server.url}/docs/api/scalar.js`);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("javascript");
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${server.url}/docs/api/scalar.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});
