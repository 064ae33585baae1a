import { createDb } from "@shelf/db";
import { writeNode } from "@shelf/server/edge/node";
import { errorResult } from "@shelf/server/edge/results";
import { createEdgeServer } from "@shelf/server/edge/server";
import { createLogger, readLogEnv } from "@shelf/server/log";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { createEdge } from "../api-edge";
import { createTestRouter } from "./test-router";

/**
 * The test router behind the real Node server, in a process of its own: downloads are measured from outside it
 * (curl, aria2c) and its memory read from /proc. DATABASE_URL and FILES_DIR come from the test.
 */
const pool = createDb(process.env.DATABASE_URL as string, { max: 4 });
const log = createLogger(readLogEnv(), { process: "file-server" });
const edge = createEdge({
  router: createTestRouter({ filesDir: process.env.FILES_DIR as string }),
  db: pool.db,
  baseUrl: "http://127.0.0.1",
  rateLimiter: createRateLimiter({ points: 1_000_000 }),
  log,
});
const server = createEdgeServer({
  edges: [edge],
  fallback: async (_req, res) => writeNode(res, errorResult("not_found")),
  log,
});
const port = await server.listen(0, "127.0.0.1");
console.log(`file server listening on ${port}`);
process.on("SIGTERM", async () => {
  await server.shutdown(1000);
  await pool.close();
  process.exit(0);
});
