import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordSecret } from "@shelf/api/testing";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { seriousViolations } from "@shelf/web-kit/testing/axe";
import type { Browser, BrowserContext, Page } from "playwright-core";
import postgres from "postgres";
import { expect } from "vitest";
import { launchChromium } from "./browser";
import { type RunningServer, startServer } from "./server";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where the page tests keep their screenshots. */
export const shots = path.join(webDir, "test-results/pages");

/** What a page test file of the web app runs against (`close` ends it all). */
export type WebPageSuite = {
  testDb: TestDatabase;
  /** A connection of the test's own, to look rows up and change them. */
  sql: postgres.Sql;
  dataDir: string;
  server: RunningServer;
  browser: Browser;
  /** The demo's API key, from the server's start-up lines, when the suite runs the demo (`SHELF_DEMO`). */
  demoKey: string;
  close: () => Promise<void>;
};

/**
 * A page test file's database, data folder, production server (rate limits high and counted apart from other files',
 * `name`) and Chromium. `prepare` runs once the database and the folder are there, before the server starts (the
 * admin CLI's products, say); `env` adds settings.
 */
export async function openWebPageSuite({
  name,
  env = {},
  prepare,
}: {
  name: string;
  env?: Record<string, string>;
  prepare?: (opened: { testDb: TestDatabase; dataDir: string }) => Promise<void>;
}): Promise<WebPageSuite> {
  const opened: Partial<WebPageSuite> = {};
  const close = async () => {
    await opened.browser?.close();
    await opened.server?.stop();
    await opened.sql?.end();
    await opened.testDb?.drop();
    if (opened.dataDir) await fs.rm(opened.dataDir, { recursive: true, force: true });
  };
  try {
    const testDb = await createTestDatabase();
    opened.testDb = testDb;
    opened.sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `shelf-${name}-`));
    opened.dataDir = dataDir;
    await prepare?.({ testDb, dataDir });
    const server = await startServer({
      DATABASE_URL: testDb.url,
      SHELF_DATA_DIR: dataDir,
      ...env,
      SHELF_RATE_LIMIT_PER_MINUTE: "1000",
      SHELF_RATE_LIMIT_NAMESPACE: `${name}-${Date.now()}`,
    });
    opened.server = server;
    const demoKey = /Demo API key: (\S+)/.exec(server.output())?.[1] ?? "";
    if (demoKey) recordSecret(demoKey);
    opened.browser = await launchChromium();
    await fs.mkdir(shots, { recursive: true });
    return { testDb, sql: opened.sql, dataDir, server, browser: opened.browser, demoKey, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** axe-core finds no serious or critical violation on the page as it is now (`label` names the page in a failure). */
export async function expectNoSeriousViolations(page: Page, label: string): Promise<void> {
  expect(await seriousViolations(page), label).toEqual([]);
}

/** Fills the sign-in form and sends it (the caller waits for whatever it expects next). */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.locator("main").getByRole("button", { name: "Sign in" }).click();
}

/** A browser context of `browser` on `baseURL`, in `locale` at `viewport`, signed in as the account (on its account page). */
export async function signedInContext(
  browser: Browser,
  baseURL: string,
  {
    locale,
    viewport,
    email,
    password,
  }: { locale: string; viewport: { width: number; height: number }; email: string; password: string },
): Promise<BrowserContext> {
  const context = await browser.newContext({ locale, baseURL, viewport });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill(email);
  await page.locator("input[name=password]").fill(password);
  await page.locator("main button[type=submit]").click();
  await page.waitForURL(/\/account$/);
  await page.close();
  return context;
}

/** How far the page scrolls sideways: 0 when nothing is wider than the window. */
export function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}
