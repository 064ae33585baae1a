import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createAccountApiEdge,
  createAccountMcpEdge,
  createDelivery,
  createGuessLimits,
  createLogger,
  createMetadataDocuments,
  createMetrics,
  createOAuthEdge,
  createRateLimiter,
  DEMO_DISCLOSURE,
  loadDataFolderSecret,
  loadDeliveryFiles,
  loadDisclosure,
  scheduleHousekeeping,
  storeReadiness,
} from "@shelf/api";
import { loadDemoSecret, seedDemo } from "@shelf/api/demo";
import { createEdgeServer, type Edge, hostNames } from "@shelf/api/edge";
import { createDb } from "@shelf/db";
import { createDatabaseHealth, resolveDatabase, SetupError, timeoutsOf } from "@shelf/db/server";
import next from "next";
import { readWebConfig } from "./src/env";
import { pageHeaders } from "./src/page-headers";
import { withPageStatus } from "./src/page-status";
import { setRuntime } from "./src/runtime";
import { answerUnavailable, servedWithoutDatabase, unavailableStatus } from "./src/unavailable-page";

const dir = path.dirname(fileURLToPath(import.meta.url));
const NEXT_AUTH_BODY_BYTES = 64 * 1024;

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
  let demo: { key: string; email: string; password: string } | undefined;
  if (config.web.SHELF_DEMO) {
    const secret = await loadDemoSecret(config.db.SHELF_DATA_DIR);
    demo = await seedDemo(pool.db, { brand: config.api.SHELF_KEY_PREFIX, secret, files });
  }
  // Sign-in failures and device codes are counted where every instance sees them (Redis), like the rate limits.
  const guessLimits = createGuessLimits({
    redisUrl: config.api.REDIS_URL,
    namespace: `${config.web.SHELF_RATE_LIMIT_NAMESPACE}:guess`,
  });
  // Every instance must seal and open the same session cookies: the environment's secret, else the data folder's.
  const authSecret =
    config.web.SHELF_AUTH_SECRET ?? (await loadDataFolderSecret(config.db.SHELF_DATA_DIR, "auth-secret"));

  const app = next({ dev: config.web.NODE_ENV !== "production", dir });
  await app.prepare();

  // Links need the public base URL, known once the port is (PORT=0 picks a free one): the edge is built after listen.
  const edges: Edge[] = [];
  const handleNext = app.getRequestHandler();
  const httpServer = createEdgeServer({
    edges,
    // Pages: security headers and a CSP nonce per request, the client's address as the server saw it.
    fallback: async (req, res) => {
      pageHeaders(req, res, {
        trustProxy: config.api.SHELF_TRUST_PROXY,
        dev: config.web.NODE_ENV !== "production",
        https: config.api.SHELF_BASE_URL?.startsWith("https:"),
      });
      // A render waits for the database: while it does not answer, the page says so at once, as the API does.
      const path = (req.url ?? "/").split("?", 1)[0] as string;
      if (!servedWithoutDatabase(path) && !(health.up && (await health.check()).reachable)) {
        return answerUnavailable(req, res);
      }
      // A render that failed because the database stopped answering meanwhile is an outage too, not a bug.
      return withPageStatus(
        res,
        () => handleNext(req, res),
        (status) => (status === 500 && !health.up ? unavailableStatus(res) : status),
      );
    },
    upgrade: app.getUpgradeHandler(),
    // next-auth's forms are a few hundred bytes; other pages (server actions) keep the server's default of 1 MiB,
    // which is also the most Next itself lets a server action take.
    pageBodyLimit: (path) => (path === "/auth" || path.startsWith("/auth/") ? NEXT_AUTH_BODY_BYTES : undefined),
    log,
    trustProxy: config.api.SHELF_TRUST_PROXY,
    legacyHosts: (config.api.SHELF_LEGACY_URL ?? []).flatMap(hostNames),
    ops: {
      metrics,
      metricsToken: config.web.SHELF_METRICS_TOKEN,
      readiness: async () => {
        const [db, artifacts, store] = await Promise.all([health.check(), artifactsReady(), rateLimiter.store()]);
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
  // What the API's edges share: the database and its health, the log, links, files, the key brand, the limiter.
  const edgeBasics = {
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    health,
    log,
    baseUrl,
    delivery,
    keyBrand: config.api.SHELF_KEY_PREFIX,
    rateLimiter,
  };
  const accountApi = createAccountApiEdge({
    ...edgeBasics,
    disclosure,
    // Routes' own limits (crash reports: 5 a minute per address) share the main limiter's store.
    routeLimiter: (name, perMinute) =>
      createRateLimiter({
        points: perMinute,
        redisUrl: config.api.REDIS_URL,
        name: `${config.web.SHELF_RATE_LIMIT_NAMESPACE}:${name}`,
      }),
    trustProxy: config.api.SHELF_TRUST_PROXY,
  });
  // The authorization server's endpoints (the consent page is Next's): tokens for the account MCP only.
  const oauthSettings = {
    issuer: config.api.SHELF_AUTH_URL ?? baseUrl.replace(/\/+$/, ""),
    resource: `${baseUrl.replace(/\/+$/, "")}/api/mcp`,
    brand: config.api.SHELF_KEY_PREFIX,
    // Clients may name themselves by the URL of their metadata document (fetched under SSRF rules).
    documents: createMetadataDocuments({ log, loopbackOrigin: config.api.SHELF_OAUTH_LOOPBACK_DOCUMENT_ORIGIN }),
  };
  const registrationLimiter = createRateLimiter({
    points: 10,
    redisUrl: config.api.REDIS_URL,
    name: `${config.web.SHELF_RATE_LIMIT_NAMESPACE}:oauth-register`,
  });
  const oauth = createOAuthEdge({
    db: pool.db,
    settings: oauthSettings,
    log,
    health,
    rateLimiter,
    registrationLimiter,
    trustProxy: config.api.SHELF_TRUST_PROXY,
  });
  // The account MCP owns /api/mcp exactly: it comes before the account API, which owns the rest of /api.
  const accountMcp = createAccountMcpEdge(edgeBasics);
  edges.push(oauth, accountMcp, accountApi);
  // next-auth (v4) finds its own URL and base path (/auth, since /api is the REST API's) only in this variable.
  process.env.NEXTAUTH_URL = `${baseUrl}/auth`;
  setRuntime({
    config,
    baseUrl,
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    health,
    delivery,
    log,
    guessLimits,
    authSecret,
    secureCookies: baseUrl.startsWith("https:"),
    oauth: oauthSettings,
  });
  if (!(await guessLimits.ready()))
    log.warn("Redis did not answer: sign-in limits are counted per instance until it does");
  if (!(await rateLimiter.ready()) || !(await accountApi.ready()))
    log.warn("Redis did not answer: rate limits are counted per instance until it does");

  const housekeepingMinutes = config.web.SHELF_HOUSEKEEPING_INTERVAL_MINUTES;
  const housekeeping =
    housekeepingMinutes > 0 ? scheduleHousekeeping(pool.db, { intervalMs: housekeepingMinutes * 60_000, log }) : null;

  const databaseLabel = database.embedded ? `embedded PostgreSQL on port ${database.embedded.port}` : "DATABASE_URL";
  log.info({ port, baseUrl, database: databaseLabel }, "listening");
  // For the person at the terminal (the log may go to a file); the demo key is a credential and never logged.
  console.log(`Database: ${databaseLabel}`);
  if (demo) {
    console.log(`Demo API key: ${demo.key}`);
    console.log(`Try: curl -H "Authorization: Bearer ${demo.key}" http://localhost:${port}/api/library`);
    console.log(`Demo sign-in: ${demo.email} / ${demo.password} at http://localhost:${port}/sign-in`);
  }
  console.log(`Shelf is running at http://localhost:${port}`);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    // One signal often arrives twice (a process group's Ctrl-C, and tsx relaying it): the shutdown bound decides.
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "finishing requests in flight, then stopping");
    await httpServer.shutdown(config.web.SHELF_SHUTDOWN_TIMEOUT_SECONDS * 1000);
    await housekeeping?.stop();
    await Promise.allSettled([
      pool.close(),
      rateLimiter.close(),
      guessLimits.close(),
      registrationLimiter.close(),
      accountApi.close(),
      health.close(),
    ]);
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
