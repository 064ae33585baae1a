import path from "node:path";
import { fileURLToPath } from "node:url";
import { prepareStart } from "@shelf/api/host";
import { readDesignConfig } from "./src/env";

/**
 * `npm start -w @shelf/design`: every setting and the database checked first, each mistake said in one line; the
 * production build made only when a source changed since the last one (SHELF_SKIP_BUILD=true skips the check); then
 * the server.
 */
await prepareStart({
  appDir: path.dirname(fileURLToPath(import.meta.url)),
  label: "the design app",
  readConfig: readDesignConfig,
});
await import("./server");
