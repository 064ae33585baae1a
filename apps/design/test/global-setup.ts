import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const designDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const webDir = path.resolve(designDir, "../web");

function build(dir: string) {
  return promisify(execFile)(path.join(dir, "../../node_modules/.bin/next"), ["build"], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * One production build of the design app for every design test file (SHELF_TEST_REUSE_BUILD=1 keeps an existing
 * one). The root `npm start` test runs the web app too: its build is the web project's, made before this one when
 * both projects run; alone, this project builds it only if there is none.
 */
export default async function setup() {
  const reuse = process.env.SHELF_TEST_REUSE_BUILD === "1" && existsSync(path.join(designDir, ".next/BUILD_ID"));
  if (!reuse) await build(designDir);
  if (!existsSync(path.join(webDir, ".next/BUILD_ID"))) await build(webDir);
}
