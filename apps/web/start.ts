import path from "node:path";
import { fileURLToPath } from "node:url";
import { prepareStart } from "@shelf/api/host";
import { readWebConfig } from "./src/env";

/**
 * `npm start -w @shelf/web`: every setting and the database checked first, each mistake said in one line; the
 * production build made only when a source changed since the last one (SHELF_SKIP_BUILD=true skips the check); then
 * the server.
 */
await prepareStart({
  appDir: path.dirname(fileURLToPath(import.meta.url)),
  label: "the web app",
  readConfig: readWebConfig,
});
await import("./server");
