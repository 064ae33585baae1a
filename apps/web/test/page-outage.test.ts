import { startDbProxy } from "@shelf/api/testing";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./browser";
import { type RunningServer, startServer } from "./server";

/** The pool's statement timeout here; requests give up a second later (the database deadline). */
const STATEMENT_MS = 1000;
/** The bound on a page while the database is frozen: the deadline or the health probe, plus scheduling slack. */
const BOUND_MS = STATEMENT_MS + 1000 + 2500;

let testDb: TestDatabase;
let proxy: Awaited<ReturnType<typeof startDbProxy>>;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  testDb = await createTestDatabase();
  proxy = await startDbProxy(testDb.url);
  server = await startServer({
    DATABASE_URL: proxy.url,
    SHELF_DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
    SHELF_DB_CONNECT_TIMEOUT_SECONDS: "1",
    SHELF_RATE_LIMIT_NAMESPACE: `page-outage-${Date.now()}`,
  });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await proxy?.close();
  await testDb?.drop();
});

async function timed(pathname: string, cookie: string) {
  const start = Date.now();
  const response = await fetch(`${server.url}${pathname}`, {
    headers: { cookie, "accept-language": "en" },
    redirect: "manual",
  });
  const body = await response.text();
  return { status: response.status, body, ms: Date.now() - start, retryAfter: response.headers.get("retry-after") };
}

/** A new account signed in through the sign-up form: its browser context and its session cookie. */
async function signedUp(name: string) {
  const context = await browser.newContext({ locale: "en-US", baseURL: server.url });
  const page = await context.newPage();
  await page.goto("/sign-up");
  await page.getByLabel("Email").fill(`${name}-${Date.now()}@example.test`);
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.locator("main").getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/account$/);
  const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join("; ");
  return { context, cookie };
}

describe("pages while the database is frozen", () => {
  it("answer 503 with a page that says the service is unavailable, within the database deadline, then recover", async () => {
    const { context, cookie } = await signedUp("outage");
    expect((await timed("/account", cookie)).status).toBe(200);

    proxy.freeze();
    try {
      // A render that starts in the second after the last good health check finds out from the session lookup's
      // deadline: it fails within that deadline as an outage (503, never a bug's 500), and reports the database down
      // for the requests after it.
      const first = await timed("/account", cookie);
      expect(first.ms).toBeLessThan(BOUND_MS);
      expect(first.status).toBe(503);
      expect(first.retryAfter).toMatch(/^\d+$/);
      for (const pathname of ["/account", "/settings/api-keys", "/sign-in", "/"]) {
        const answer = await timed(pathname, cookie);
        expect(answer.status, pathname).toBe(503);
        expect(answer.ms, pathname).toBeLessThan(BOUND_MS);
        expect(answer.body, pathname).toContain("temporarily unavailable");
        expect(answer.retryAfter, pathname).toMatch(/^\d+$/);
      }
    } finally {
      await proxy.restore();
    }
    await expect
      .poll(async () => (await timed("/account", cookie)).status, { timeout: 15_000, interval: 500 })
      .toBe(200);
    await context.close();
  }, 120_000);

  it("answer 503 with the outage page when the session lookup alone times out, never a sign-out or a 500", async () => {
    const { context, cookie } = await signedUp("slow-lookup");
    expect((await timed("/account", cookie)).status).toBe(200);
    // The sessions table locked by another transaction: the lookup waits until the statement timeout cancels it,
    // while the database answers everything else (the health monitor stays up).
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const transaction = testDb.sql.begin(async (sql) => {
      await sql`lock table web_sessions in access exclusive mode`;
      locked();
      await held;
    });
    await lockTaken;
    try {
      for (const pathname of ["/account", "/settings/api-keys"]) {
        const answer = await timed(pathname, cookie);
        expect(answer.status, pathname).toBe(503);
        expect(answer.ms, pathname).toBeLessThan(BOUND_MS);
        expect(answer.retryAfter, pathname).toMatch(/^\d+$/);
        expect(answer.body, pathname).toContain("temporarily unavailable");
      }
      // Nothing else waits on the sessions: a page without a session is served.
      expect((await timed("/sign-in", "")).status).toBe(200);
    } finally {
      release();
      await transaction;
    }
    expect((await timed("/account", cookie)).status).toBe(200);
    await context.close();
  }, 120_000);
});
