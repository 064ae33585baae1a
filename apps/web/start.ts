import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkDatabase, SetupError } from "@shelf/db/server";
import { buildState } from "./src/build-state";
import { readWebConfig } from "./src/env";

/**
 * `npm start`: every setting and the database checked first, each mistake said in one line; the production build
 * made only when a source changed since the last one (SHELF_SKIP_BUILD=true skips the check); then the server.
 */
const webDir = path.dirname(fileURLToPath(import.meta.url));

async function prepare() {
  const config = readWebConfig();
  if (config.db.DATABASE_URL) await checkDatabase(config.db.DATABASE_URL, config.db.SHELF_DB_CONNECT_TIMEOUT_SECONDS);
  if (process.env.SHELF_SKIP_BUILD === "true") return;
  const state = buildState(webDir);
  if (state.current) {
    console.log("The web app's build is up to date.");
    return;
  }
  console.log(`Building the web app: ${state.reason}...`);
  const build = spawnSync(path.join(webDir, "../../node_modules/.bin/next"), ["build"], {
    cwd: webDir,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  if (build.status !== 0) throw new SetupError("The web app did not build (see above).");
}

try {
  await prepare();
} catch (error) {
  console.error(error instanceof SetupError ? `error: ${error.message}` : error);
  process.exit(1);
}
await import("./server");
