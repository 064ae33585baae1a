import fs from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical violations on the page as it is now, each with the elements it found. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the script evaluated above
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  });
}
