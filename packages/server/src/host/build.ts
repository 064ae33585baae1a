import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { stripVTControlCharacters } from "node:util";
import { checkDatabase, type DbEnv, SetupError } from "@shelf/db/server";

/** What an app's production build is made from, relative to its folder (a missing one is skipped). */
export const BUILD_SOURCES = [
  "app",
  "src",
  "messages",
  "public",
  "next.config.ts",
  "package.json",
  "tsconfig.json",
  "../../packages/api/src",
  "../../packages/web-kit/src",
  "../../packages/server/src",
  "../../packages/db/src",
  "../../package-lock.json",
];

const TEST_FILE = /\.test\.tsx?$/;

function newestFile(target: string): { file: string; mtimeMs: number } | null {
  if (!existsSync(target)) return null;
  const stat = statSync(target);
  if (!stat.isDirectory()) return { file: target, mtimeMs: stat.mtimeMs };
  let newest: { file: string; mtimeMs: number } | null = null;
  for (const entry of readdirSync(target)) {
    // Tests are never part of a build: editing one does not make the build stale.
    if (entry === "node_modules" || entry.startsWith(".") || TEST_FILE.test(entry)) continue;
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
  appDir: string,
  sources = BUILD_SOURCES,
): { current: true } | { current: false; reason: string } {
  const buildId = path.join(appDir, ".next/BUILD_ID");
  if (!existsSync(buildId)) return { current: false, reason: "there is no build yet" };
  const builtAt = statSync(buildId).mtimeMs;
  for (const source of sources) {
    const newest = newestFile(path.resolve(appDir, source));
    if (newest && newest.mtimeMs > builtAt) {
      return { current: false, reason: `${path.relative(appDir, newest.file)} changed since the last build` };
    }
  }
  return { current: true };
}

/**
 * What `npm start` does before an app's server: every setting and the database checked first, each mistake said in
 * one line; the production build made only when a source changed since the last one (`SHELF_SKIP_BUILD=true` skips
 * the check). A mistake ends the process with that line.
 */
export async function prepareStart(options: {
  /** The app's folder (where `next build` runs). */
  appDir: string;
  /** How the terminal names it: "the web app", "the design app". */
  label: string;
  /** Reads (and so checks) every setting of the app. */
  readConfig: () => { db: DbEnv };
}): Promise<void> {
  try {
    const { db } = options.readConfig();
    if (db.DATABASE_URL) await checkDatabase(db.DATABASE_URL, db.SHELF_DB_CONNECT_TIMEOUT_SECONDS);
    if (process.env.SHELF_SKIP_BUILD === "true") return;
    const state = buildState(options.appDir);
    const name = options.label.replace(/^the /, "The ");
    if (state.current) {
      console.log(`${name}'s build is up to date.`);
      return;
    }
    console.log(`Building ${options.label}: ${state.reason}...`);
    await build(options.appDir, name);
  } catch (error) {
    failStart(error);
  }
}

/** Where Next's whole report of the last build is kept, in the app's folder. */
export const BUILD_REPORT = ".next/build.log";

/** Next's lines that say a step of the build is done (its config's load time aside): the progress shown. */
const DONE_STEP = /^(✓ (?!Running next\.config)|Finished )/;
/** How Next's and Turbopack's warnings begin. */
const WARNING = /^(⚠|Warning:)|\bencountered \d+ warnings?:/;

/**
 * `next build` with its report kept in BUILD_REPORT: the terminal shows a line per finished step and one at the end
 * (pointing to the report if it holds warnings); the route table and the rest only when the build fails.
 */
async function build(appDir: string, name: string): Promise<void> {
  const root = path.resolve(appDir, "../..");
  // Next tells CI machines (CI=true) without a build cache folder to configure one: a hint for build pipelines, not
  // for a start. The folder is Next's own, which the build fills.
  await mkdir(path.join(appDir, ".next/cache"), { recursive: true });
  const next = spawn(path.join(root, "node_modules/.bin/next"), ["build"], {
    cwd: appDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  const report: string[] = [];
  let warned = false;
  for (const stream of [next.stdout, next.stderr]) {
    readline.createInterface({ input: stream }).on("line", (line) => {
      report.push(line);
      const plain = stripVTControlCharacters(line).trim();
      if (DONE_STEP.test(plain)) console.log(`  ${plain}`);
      if (WARNING.test(plain)) warned = true;
    });
  }
  const [code] = await once(next, "close");
  const text = `${report.join("\n")}\n`;
  if (code !== 0) {
    process.stderr.write(text);
    throw new SetupError(`${name} did not build (see above).`);
  }
  await writeFile(path.join(appDir, BUILD_REPORT), text);
  const where = path.relative(root, path.join(appDir, BUILD_REPORT));
  console.log(warned ? `${name} is built, with warnings: see ${where}.` : `${name} is built.`);
}

/** Ends a start that cannot go on: a setup mistake in one line, anything else with its stack. */
export function failStart(error: unknown): never {
  console.error(error instanceof SetupError ? `error: ${error.message}` : error);
  process.exit(1);
}
