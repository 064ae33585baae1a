import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** One production build for every web test file; SHELF_TEST_REUSE_BUILD=1 keeps an existing one (local runs). */
export default async function setup() {
  if (process.env.SHELF_TEST_REUSE_BUILD === "1" && existsSync(path.join(webDir, ".next/BUILD_ID"))) return;
  await promisify(execFile)(path.join(webDir, "../../node_modules/.bin/next"), ["build"], {
    cwd: webDir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    maxBuffer: 64 * 1024 * 1024,
  });
}
