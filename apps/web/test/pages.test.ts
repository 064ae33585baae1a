import path from "node:path";
import { fileURLToPath } from "node:url";
import { pageSuite } from "@shelf/api/testing/apps";
import { openApiReference } from "@shelf/web-kit/testing/api-reference";
import { describe, expect, it } from "vitest";
import { startServer } from "./server";

const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test-results/pages");

const suite = pageSuite(startServer, shots);

describe("API reference page", () => {
  it("renders one reference of the live OpenAPI document, from this server only, with no console error", async () => {
    const { page, seen, heading } = await openApiReference(suite, {
      title: "API reference · Shelf",
      heading: "Shelf API",
    });
    // One reference, its heading on the first screen, and no AI agent.
    expect(await heading.count()).toBe(1);
    const box = await heading.boundingBox();
    expect(box?.y).toBeLessThan(800);
    expect(await page.getByRole("button", { name: /Ask AI/i }).count()).toBe(0);
    const library = page.locator("section", { hasText: "/api/library" }).first();
    await library.waitFor();
    expect(await page.content()).toContain("/api/device-sign-in/token");
    // Search, and request examples in curl.
    expect(await page.locator("button", { hasText: "Search" }).count()).toBeGreaterThan(0);
    expect(await page.getByText("curl", { exact: false }).count()).toBeGreaterThan(0);
    // Every request went to this server, and nothing complained.
    expect(seen.elsewhere()).toEqual([]);
    expect(seen.errors).toEqual([]);
    await page.screenshot({ path: `${shots}/docs-api.png` });
    await page.close();
  });

  it("serves the renderer's bundle with a validator, and a 304 for a cached copy", async () => {
    const first = await fetch(`${suite.server.url}/docs/api/scalar.js`);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("javascript");
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${suite.server.url}/docs/api/scalar.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});
