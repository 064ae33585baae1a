import { type Browser, chromium } from "playwright-core";

/**
 * Debian's Chromium, headless, as this machine lets it run: no sandbox (root), and none of the background
 * connections its closed network would refuse.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
}
