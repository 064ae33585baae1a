import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Makes the demo's gallery run (packages/demo/src/design-run) from a run the reference collect agent saved with
 * `--out`: the pages a designer learns most from, desktop in both languages and mobile in English, so the committed
 * folder stays a few hundred kilobytes. The API reference pages (a third-party viewer, the same in every language)
 * and the device sign-in page are left out. Usage: node --import tsx scripts/demo-gallery.ts <saved run folder>
 */
type Capture = {
  meta: { page?: string };
  viewport: string;
  lang: string;
  image: { file: string };
  html: { file: string } | null;
  assets: string[];
};
type Run = { captures: Capture[]; assets: { sha256: string; file: string }[] } & Record<string, unknown>;

const LEFT_OUT = new Set(["/docs/api", "/device"]);
const kept = (capture: Capture) =>
  !LEFT_OUT.has(capture.meta.page ?? "") && (capture.viewport === "desktop" || capture.lang === "en");

const [from] = process.argv.slice(2);
if (!from) {
  console.error("usage: node --import tsx scripts/demo-gallery.ts <saved run folder>");
  process.exit(1);
}
const to = path.join(import.meta.dirname, "../packages/demo/src/design-run");
const run = JSON.parse(await readFile(path.join(from, "run.json"), "utf8")) as Run;
const captures = run.captures.filter(kept);
const used = new Set(captures.flatMap((capture) => capture.assets));
const assets = run.assets.filter((asset) => used.has(asset.sha256));
const files = [
  ...captures.flatMap((capture) => [capture.image.file, ...(capture.html ? [capture.html.file] : [])]),
  ...assets.map((asset) => asset.file),
];
await rm(to, { recursive: true, force: true });
for (const file of new Set(files)) {
  await mkdir(path.dirname(path.join(to, file)), { recursive: true });
  await copyFile(path.join(from, file), path.join(to, file));
}
// The addresses it was collected from (a scratch port) become the apps' default ones, as a fresh clone serves them.
const collectedFrom = run.source as { target: string; design_url: string };
const text = JSON.stringify({ ...run, captures, assets }, null, 2)
  .replaceAll(new URL(collectedFrom.target).origin, "http://localhost:3000")
  .replaceAll(new URL(collectedFrom.design_url).origin, "http://localhost:3001");
await writeFile(path.join(to, "run.json"), `${text}\n`);
console.log(`${captures.length} captures and ${assets.length} assets written to ${to}`);
