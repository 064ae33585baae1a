import { type PageSuite, watchPage } from "@shelf/api/testing/apps";
import { expect } from "vitest";

/**
 * Opens an app's API reference page (`/docs/api`) and waits for its one reference to be drawn: the page's title, one
 * Vue app in the page, its heading on screen. The page is the caller's to look further at and close; `seen` is what it
 * asked for and complained about.
 */
export async function openApiReference(suite: PageSuite, { title, heading }: { title: string; heading: string }) {
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const seen = watchPage(page, suite.server.url);
  await page.goto(`${suite.server.url}/docs/api`);
  expect(await page.title()).toBe(title);
  const headingLocator = page.getByRole("heading", { name: heading, level: 1 });
  await headingLocator.waitFor({ timeout: 30_000 });
  await page.waitForLoadState("networkidle");
  expect(await page.locator("body > [data-v-app]").count()).toBe(1);
  expect(await headingLocator.isVisible()).toBe(true);
  return { page, seen, heading: headingLocator };
}
