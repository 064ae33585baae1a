import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAccountApiEdge, createRateLimiter } from "@shelf/api";
import { seedDemo } from "@shelf/api/demo";
import { createEdgeServer } from "@shelf/api/edge";
import { createDb } from "@shelf/db";
import { resolveDatabase } from "@shelf/db/server";
import next from "next";
import { readWebConfig } from "./src/env";
import { setRuntime } from "./src/runtime";

const dir = path.dirname(fileURLToPath(import.meta.url));

/**
 * The web app's process: configuration read once, the database resolved (embedded or DATABASE_URL), one pool and
 * one rate limiter, the account API edge for /api, Next.js for the pages, and a graceful stop on SIGTERM.
 */
async function main() {
  const config = readWebConfig();
  const database = await resolveDatabase(config.db, { log: () => {} });
  const pool = createDb(database.url, { max: config.web.SHELF_DB_POOL_SIZE });

  let demoKey: string | undefined;
  if (config.web.SHELF_DEMO) demoKey = (await seedDemo(pool.db, { brand: config.api.SHELF_KEY_PREFIX })).key;

  const app = next({ dev: config.web.NODE_ENV !== "production", dir });
  await app.prepare();
  const rateLimiter = createRateLimiter({
    points: config.api.SHELF_RATE_LIMIT_PER_MINUTE,
    redisUrl: config.api.REDIS_URL,
    name: config.web.SHELF_RATE_LIMIT_NAMESPACE,
  });

  // Links need the public base URL, known once the port is (PORT=0 picks a free one): the edge is built after listen.
  const edges: Parameters<typeof createEdgeServer>[0]["edges"] = [];
  const handleNext = app.getRequestHandler();
  const httpServer = createEdgeServer({
    edges,
    fallback: (req, res) => handleNext(req, res),
    upgrade: app.getUpgradeHandler(),
  });
  const port = await httpServer.listen(config.web.PORT, config.web.HOST);
  const baseUrl = config.api.SHELF_BASE_URL ?? `http://localhost:${port}`;
  const accountApi = createAccountApiEdge({
    db: pool.db,
    baseUrl,
    rateLimiter,
    trustProxy: config.api.SHELF_TRUST_PROXY,
  });
  edges.push(accountApi);
  setRuntime({ config, baseUrl, db: pool.db, accountApi });
  if (!(await rateLimiter.ready()))
    console.warn("Redis did not answer: rate limits are counted per instance until it does.");

  console.log(
    `Database: ${database.embedded ? `embedded PostgreSQL on port ${database.embedded.port}` : "DATABASE_URL"}`,
  );
  if (demoKey) {
    console.log(`Demo API key: ${demoKey}`);
    console.log(`Try: curl -H "Authorization: Bearer ${demoKey}" http://localhost:${port}/api/library`);
  }
  console.log(`Shelf is running at http://localhost:${port}`);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      console.log(`${signal} again: stopping now.`);
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: finishing requests in flight, then stopping.`);
    await httpServer.shutdown(config.web.SHELF_SHUTDOWN_TIMEOUT_SECONDS * 1000);
    await Promise.allSettled([pool.close(), rateLimiter.close()]);
    await database.stop();
    console.log("Stopped.");
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
