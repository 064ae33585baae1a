import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createAccountApiEdge,
  createDelivery,
  createLogger,
  createMetrics,
  createRateLimiter,
  DEMO_DISCLOSURE,
  loadDeliveryFiles,
  loadDisclosure,
  storeReadiness,
} from "@shelf/api";
import { loadDemoSecret, seedDemo } from "@shelf/api/demo";
import { createEdgeServer, type Edge, hostNames } from "@shelf/api/edge";
import { createDb } from "@shelf/db";
import { createDatabaseHealth, resolveDatabase, SetupError, timeoutsOf } from "@shelf/db/server";
import next from "next";
import { readWebConfig } from "./src/env";
import { setRuntime } from "./src/runtime";

const dir = path.dirname(fileURLToPath(import.meta.url));

/**
 * The web app's process: configuration read once, the database resolved (embedded or DATABASE_URL) and watched,
 * one pool and one rate limiter, the account API edge for /api, the operator's endpoints, Next.js for the pages,
 * JSON logs, and a graceful stop on SIGTERM.
 */
async function main() {
  const config = readWebConfig();
  const log = createLogger(config.log, { app: "web" });
  const database = await resolveDatabase(config.db, {
    onEvent: (event) =>
      event.type === "exited"
        ? log.error({ reason: event.reason }, "embedded PostgreSQL exited unexpectedly; restarting it")
        : log.warn({ attempts: event.attempts }, "embedded PostgreSQL restarted"),
  });
  const health = createDatabaseHealth(database.url, {
    onChange: (up, reason) => (up ? log.warn("database answers again") : log.error({ reason }, "database unavailable")),
  });
  const rateLimiter = createRateLimiter({
    points: config.api.SHELF_RATE_LIMIT_PER_MINUTE,
    redisUrl: config.api.REDIS_URL,
    name: config.web.SHELF_RATE_LIMIT_NAMESPACE,
  });
  const metrics = createMetrics({ database: health, poolSize: config.web.SHELF_DB_POOL_SIZE, rateLimiter });
  const pool = createDb(database.url, {
    max: config.web.SHELF_DB_POOL_SIZE,
    timeouts: timeoutsOf(config.db),
  });

  const files = await loadDeliveryFiles(config.api, config.db.SHELF_DATA_DIR);
  // A deployment publishes its own disclosure; the demo, without one, a sample that says it is one.
  const disclosure = (await loadDisclosure(config.api)) ?? (config.web.SHELF_DEMO ? DEMO_DISCLOSURE : undefined);
  const artifactsReady = storeReadiness(files.store);
  let demoKey: string | undefined;
  if (config.web.SHELF_DEMO) {
    const secret = await loadDemoSecret(config.db.SHELF_DATA_DIR);
    demoKey = (await seedDemo(pool.db, { brand: config.api.SHELF_KEY_PREFIX, secret, files })).key;
  }

  const app = next({ dev: config.web.NODE_ENV !== "production", dir });
  await app.prepare();

  // Links need the public base URL, known once the port is (PORT=0 picks a free one): the edge is built after listen.
  const edges: Edge[] = [];
  const handleNext = app.getRequestHandler();
  const httpServer = createEdgeServer({
    edges,
    fallback: (req, res) => handleNext(req, res),
    upgrade: app.getUpgradeHandler(),
    log,
    trustProxy: config.api.SHELF_TRUST_PROXY,
    legacyHosts: (config.api.SHELF_LEGACY_URL ?? []).flatMap(hostNames),
    ops: {
      metrics,
      metricsToken: config.web.SHELF_METRICS_TOKEN,
      readiness: async () => {
        const [db, artifacts] = await Promise.all([health.check(), artifactsReady()]);
        const store = rateLimiter.store();
        return {
          ready: db.reachable && db.migrated && store.reachable && artifacts.reachable,
          checks: { database: db, rate_limit_store: store, artifact_store: artifacts },
        };
      },
    },
  });
  const port = await httpServer.listen(config.web.PORT, config.web.HOST);
  const baseUrl = config.api.SHELF_BASE_URL ?? `http://localhost:${port}`;
  const delivery = await createDelivery({ env: config.api, dataDir: config.db.SHELF_DATA_DIR, baseUrl, files });
  const accountApi = createAccountApiEdge({
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    health,
    log,
    baseUrl,
    delivery,
    keyBrand: config.api.SHELF_KEY_PREFIX,
    disclosure,
    rateLimiter,
    // Routes' own limits (crash reports: 5 a minute per address) share the main limiter's store.
    routeLimiter: (name, perMinute) =>
      createRateLimiter({
        points: perMinute,
        redisUrl: config.api.REDIS_URL,
        name: `${config.web.SHELF_RATE_LIMIT_NAMESPACE}:${name}`,
      }),
    trustProxy: config.api.SHELF_TRUST_PROXY,
  });
  edges.push(accountApi);
  setRuntime({ config, baseUrl, db: pool.db, accountApi });
  if (!(await rateLimiter.ready()) || !(await accountApi.ready()))
    log.warn("Redis did not answer: rate limits are counted per instance until it does");

  const databaseLabel = database.embedded ? `embedded PostgreSQL on port ${database.embedded.port}` : "DATABASE_URL";
  log.info({ port, baseUrl, database: databaseLabel }, "listening");
  // For the person at the terminal (the log may go to a file); the demo key is a credential and never logged.
  console.log(`Database: ${databaseLabel}`);
  if (demoKey) {
    console.log(`Demo API key: ${demoKey}`);
    console.log(`Try: curl -H "Authorization: Bearer ${demoKey}" http://localhost:${port}/api/library`);
  }
  console.log(`Shelf is running at http://localhost:${port}`);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    // One signal often arrives twice (a process group's Ctrl-C, and tsx relaying it): the shutdown bound decides.
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "finishing requests in flight, then stopping");
    await httpServer.shutdown(config.web.SHELF_SHUTDOWN_TIMEOUT_SECONDS * 1000);
    await Promise.allSettled([pool.close(), rateLimiter.close(), accountApi.close(), health.close()]);
    await database.stop();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => {
  console.error(error instanceof SetupError ? `error: ${error.message}` : error);
  process.exit(1);
});
