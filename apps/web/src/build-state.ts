import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** What the production build of the web app is made from, relative to apps/web. */
export const BUILD_SOURCES = [
  "app",
  "src",
  "messages",
  "public",
  "next.config.ts",
  "package.json",
  "tsconfig.json",
  "../../packages/api/src",
  "../../packages/db/src",
  "../../package-lock.json",
];

function newestFile(target: string): { file: string; mtimeMs: number } | null {
  if (!existsSync(target)) return null;
  const stat = statSync(target);
  if (!stat.isDirectory()) return { file: target, mtimeMs: stat.mtimeMs };
  let newest: { file: string; mtimeMs: number } | null = null;
  for (const entry of readdirSync(target)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    const found = newestFile(path.join(target, entry));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/**
 * Whether `.next` holds a build newer than every source it is made from; if not, why (no build, or the first
 * source found that changed after it).
 */
export function buildState(
  webDir: string,
  sources = BUILD_SOURCES,
): { current: true } | { current: false; reason: string } {
  const buildId = path.join(webDir, ".next/BUILD_ID");
  if (!existsSync(buildId)) return { current: false, reason: "there is no build yet" };
  const builtAt = statSync(buildId).mtimeMs;
  for (const source of sources) {
    const newest = newestFile(path.resolve(webDir, source));
    if (newest && newest.mtimeMs > builtAt) {
      return { current: false, reason: `${path.relative(webDir, newest.file)} changed since the last build` };
    }
  }
  return { current: true };
}
