import type http from "node:http";
import type { Duplex } from "node:stream";
import { createDb, type Database } from "@shelf/db";
import { createDatabaseHealth, type DatabaseHealth, type DbEnv, resolveDatabase, timeoutsOf } from "@shelf/db/server";
import { hostNames } from "@shelf/server/edge/hosts";
import type { Edge } from "@shelf/server/edge/pipeline";
import { createEdgeServer, type EdgeServerOptions } from "@shelf/server/edge/server";
import { isLaunched, type ReadyMessage } from "@shelf/server/host/launch";
import { type PageHeaderOptions, pageHeaders } from "@shelf/server/host/page-headers";
import { withPageStatus } from "@shelf/server/host/page-status";
import { createLogger, type LogEnv, type Logger } from "@shelf/server/log";
import { createMetrics } from "@shelf/server/metrics";
import { createRateLimiter, type RateLimiter } from "@shelf/server/rate-limit";
import type { EdgeOptions } from "../api-edge";
import { createDelivery, type Delivery, type DeliveryFiles, loadDeliveryFiles, storeReadiness } from "../delivery";
import type { ApiEnv } from "../env";
import { scheduleHousekeeping } from "../housekeeping";
import type { HostEnv } from "./env";
import { createUnavailablePage, servedWithoutDatabase, unavailableStatus } from "./unavailable-page";

/** Next's server as the start-up drives it: the app makes it (`next({ dev, dir })`), so Next stays in the apps. */
export type PageServer = {
  prepare: () => Promise<void>;
  getRequestHandler: () => (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  getUpgradeHandler: () => (req: http.IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;
};

/** Every app's configuration: the settings every app has (its own port aside), the API's, the database's, the log's. */
export type HostConfig = { settings: HostEnv; api: ApiEnv; db: DbEnv; log: LogEnv };

/** What the start-up has made before the server listens: the app's `prepare` gets it. */
export type HostBasics = {
  config: HostConfig;
  /** Next runs in development mode (`npm run dev`). */
  dev: boolean;
  log: Logger;
  db: Database;
  /** How long a request (or a render) may wait for the database before giving up. */
  dbDeadlineMs: number;
  /** The database's health, shared by the edges and the pages: a failure seen anywhere makes later requests fail fast. */
  health: DatabaseHealth;
  /** The artifact store and the signing keys. */
  files: DeliveryFiles;
  /** Requests per minute per credential (per client address without one), for every edge of the app. */
  rateLimiter: RateLimiter;
  /** A limiter of the app's own (sign-up forms, client registration), in the same store; closed at shutdown. */
  limiter: (name: string, perMinute: number) => RateLimiter;
};

/** What every edge of an app is made with (`createEdge`'s options but the router, credentials and document). */
export type EdgeBasics = Required<
  Pick<EdgeOptions, "db" | "dbDeadlineMs" | "health" | "log" | "baseUrl" | "keyBrand" | "rateLimiter" | "routeLimiter">
> & { trustProxy: boolean; delivery: Delivery };

/** The start-up once the server listens: the port, and so the public base URL, are known. */
export type RunningHost = HostBasics & {
  port: number;
  /** The app's public base URL: its setting (`SHELF_BASE_URL`, `SHELF_DESIGN_URL`), else http://localhost:<port>. */
  baseUrl: string;
  delivery: Delivery;
  edge: EdgeBasics;
};

/** What an app mounts on the shared server once it listens. */
export type Mounted = {
  /** The app's edges, asked in order for each request's path; the pages (Next) get every path none owns. */
  edges: Edge[];
  /** Lines for the person at the terminal (the log may go to a file): they may hold a credential, so never logged. */
  lines?: string[];
  /** Closes what the app opened itself (after the server has drained). */
  close?: () => Promise<unknown>;
};

export type HostApp<Prepared> = {
  /** The app's name in its log lines (`app`). */
  name: string;
  /** How the terminal names it: "Shelf", "The design host" (then "is running at <url>"). */
  title: string;
  config: HostConfig;
  port: number;
  /** The public base URL setting; unset: http://localhost:<port>. */
  publicUrl: string | undefined;
  /** Makes Next's server for the app's folder. */
  pages: (options: { dev: boolean }) => PageServer;
  /** The app's messages (`<locale>.json`), whose `unavailable` words the outage page says. */
  messagesDir: string;
  /** The most bytes a page request's body may hold, by path (undefined: the server's default, 1 MiB). */
  pageBodyLimit?: (path: string) => number | undefined;
  /** Origins a page's forms may lead to besides this site (the OAuth consent page's redirect). */
  formTargets?: PageHeaderOptions["formTargets"];
  /** Before the server listens: what takes a while and needs no URL (the demo data, secrets). */
  prepare?: (host: HostBasics) => Promise<Prepared>;
  /** Once it listens: the app's own edges and its pages' runtime. */
  mount: (host: RunningHost, prepared: Prepared) => Promise<Mounted>;
};

/**
 * The one start-up of every app's process: the configuration read once, the database resolved (embedded or
 * DATABASE_URL) and watched, one pool and one rate limiter, metrics and JSON logs, the artifact store, the edge server
 * with the operator's endpoints (/healthz, /readyz, /metrics), Next.js for the pages behind the same security headers
 * and outage answers, housekeeping, and a graceful stop on SIGTERM or SIGINT. The app gives only what is its own:
 * its port and URL, its edges, its pages.
 */
export async function startHost<Prepared = undefined>(app: HostApp<Prepared>): Promise<void> {
  const { settings, api, db: dbEnv } = app.config;
  const dev = settings.NODE_ENV !== "production";
  const log = createLogger(app.config.log, { app: app.name });
  /** Set once SIGTERM or SIGINT arrives: /readyz answers 503, and an embedded server it owns may go. */
  let stopping = false;
  const database = await resolveDatabase(dbEnv, {
    onEvent: (event) =>
      event.type === "exited"
        ? log.error({ reason: event.reason }, "embedded PostgreSQL exited unexpectedly; restarting it")
        : log.warn({ attempts: event.attempts }, "embedded PostgreSQL restarted"),
    stopping: () => stopping,
  });
  const health = createDatabaseHealth(database.url, {
    onChange: (up, reason) => (up ? log.warn("database answers again") : log.error({ reason }, "database unavailable")),
  });
  const namespace = settings.SHELF_RATE_LIMIT_NAMESPACE;
  const limiterOf = (name: string, points: number) =>
    createRateLimiter({ points, redisUrl: api.REDIS_URL, name: `${namespace}:${name}` });
  const rateLimiter = createRateLimiter({
    points: api.SHELF_RATE_LIMIT_PER_MINUTE,
    redisUrl: api.REDIS_URL,
    name: namespace,
  });
  const metrics = createMetrics({ database: health, poolSize: settings.SHELF_DB_POOL_SIZE, rateLimiter });
  const pool = createDb(database.url, { max: settings.SHELF_DB_POOL_SIZE, timeouts: timeoutsOf(dbEnv) });
  const files = await loadDeliveryFiles(api, dbEnv.SHELF_DATA_DIR);
  const artifactsReady = storeReadiness(files.store);
  const ownLimiters: RateLimiter[] = [];
  const basics: HostBasics = {
    config: app.config,
    dev,
    log,
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    health,
    files,
    rateLimiter,
    limiter: (name, perMinute) => {
      const limiter = limiterOf(name, perMinute);
      ownLimiters.push(limiter);
      return limiter;
    },
  };
  const prepared = (await app.prepare?.(basics)) as Prepared;

  const pages = app.pages({ dev });
  await pages.prepare();
  // Links need the public base URL, known once the port is (a port of 0 picks a free one): edges come after listen.
  const edges: Edge[] = [];
  const httpServer = createEdgeServer({
    edges,
    fallback: pageFallback(app, {
      handle: pages.getRequestHandler(),
      unavailable: createUnavailablePage(app.messagesDir),
      health,
      dev,
    }),
    upgrade: pages.getUpgradeHandler(),
    pageBodyLimit: app.pageBodyLimit,
    log,
    trustProxy: api.SHELF_TRUST_PROXY,
    legacyHosts: (api.SHELF_LEGACY_URL ?? []).flatMap(hostNames),
    ops: {
      metrics,
      metricsToken: settings.SHELF_METRICS_TOKEN,
      readiness: async () => {
        if (stopping) return { ready: false, checks: { shutdown: "draining" } };
        const [db, artifacts, store] = await Promise.all([health.check(), artifactsReady(), rateLimiter.store()]);
        return {
          ready: db.reachable && db.migrated && store.reachable && artifacts.reachable,
          checks: { database: db, rate_limit_store: store, artifact_store: artifacts },
        };
      },
    },
  });
  const port = await httpServer.listen(app.port, settings.HOST);
  const baseUrl = app.publicUrl ?? `http://localhost:${port}`;
  const delivery = await createDelivery({ env: api, dataDir: dbEnv.SHELF_DATA_DIR, baseUrl, files });
  const running: RunningHost = {
    ...basics,
    port,
    baseUrl,
    delivery,
    edge: {
      db: pool.db,
      dbDeadlineMs: pool.deadlineMs,
      health,
      log,
      baseUrl,
      delivery,
      keyBrand: api.SHELF_KEY_PREFIX,
      rateLimiter,
      // Routes' own limits (crash reports: 5 a minute per address) share the main limiter's store; their edge closes them.
      routeLimiter: limiterOf,
      trustProxy: api.SHELF_TRUST_PROXY,
    },
  };
  const mounted = await app.mount(running, prepared);
  edges.push(...mounted.edges);
  const storesReady = await Promise.all([rateLimiter.ready(), ...mounted.edges.map((edge) => edge.ready())]);
  if (!storesReady.every(Boolean)) log.warn("Redis did not answer: rate limits are counted per instance until it does");

  const housekeepingMinutes = settings.SHELF_HOUSEKEEPING_INTERVAL_MINUTES;
  const housekeeping =
    housekeepingMinutes > 0 ? scheduleHousekeeping(pool.db, { intervalMs: housekeepingMinutes * 60_000, log }) : null;

  announce(app, { log, port, baseUrl, embeddedPort: database.embedded?.port, lines: mounted.lines ?? [] });

  const stop = async (signal: NodeJS.Signals | "disconnect") => {
    // One signal often arrives twice (a process group's Ctrl-C, and a launcher or tsx relaying it): once is enough.
    if (stopping) return;
    stopping = true;
    const drainSeconds = settings.SHELF_DRAIN_SECONDS;
    if (drainSeconds > 0) {
      // /readyz answers 503 from now on: the balancer stops sending new requests while this one still serves them.
      log.info({ signal, drainSeconds }, "unready: serving until the balancer stops sending requests");
      await new Promise((resolve) => setTimeout(resolve, drainSeconds * 1000));
    }
    log.info({ signal }, "finishing requests in flight, then stopping");
    await httpServer.shutdown(settings.SHELF_SHUTDOWN_TIMEOUT_SECONDS * 1000);
    await housekeeping?.stop();
    await Promise.allSettled([
      pool.close(),
      rateLimiter.close(),
      ...ownLimiters.map((limiter) => limiter.close()),
      ...mounted.edges.map((edge) => edge.close()),
      mounted.close?.(),
      health.close(),
    ]);
    await database.stop();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Started by the root launcher: if it goes away (killed), nothing would ever stop this process otherwise.
  if (isLaunched()) process.on("disconnect", () => stop("disconnect"));
}

/**
 * The pages' server behind the edge: security headers and a CSP nonce per request (the client's address as the
 * server saw it), and while the database does not answer, the outage page at once, as the API answers 503; a render
 * that failed because the database stopped answering meanwhile is an outage too, not a bug.
 */
function pageFallback(
  app: Pick<HostApp<unknown>, "config" | "publicUrl" | "formTargets" | "title">,
  pages: {
    handle: ReturnType<PageServer["getRequestHandler"]>;
    unavailable: ReturnType<typeof createUnavailablePage>;
    health: DatabaseHealth;
    dev: boolean;
  },
): EdgeServerOptions["fallback"] {
  const { handle, unavailable, health, dev } = pages;
  return async (req, res) => {
    pageHeaders(req, res, {
      trustProxy: app.config.api.SHELF_TRUST_PROXY,
      dev,
      https: app.publicUrl?.startsWith("https:"),
      formTargets: app.formTargets,
    });
    const path = (req.url ?? "/").split("?", 1)[0] as string;
    if (!servedWithoutDatabase(path) && !(health.up && (await health.check()).reachable)) {
      return unavailable.answer(req, res);
    }
    return withPageStatus(
      res,
      () => handle(req, res),
      (status, answer) =>
        (status === 500 && !health.up) || (answer.databaseUnavailable && (status === 200 || status === 500))
          ? unavailableStatus(res)
          : status,
    );
  };
}

/** Says where the app runs: in the log, and to the person at the terminal (through the root launcher, if it started it). */
function announce(
  app: Pick<HostApp<unknown>, "config" | "publicUrl" | "formTargets" | "title">,
  started: { log: Logger; port: number; baseUrl: string; embeddedPort: number | undefined; lines: string[] },
) {
  const { log, port, baseUrl, embeddedPort } = started;
  const databaseLabel = embeddedPort === undefined ? "DATABASE_URL" : `embedded PostgreSQL on port ${embeddedPort}`;
  log.info({ port, baseUrl, database: databaseLabel }, "listening");
  const lines = [...started.lines, `${app.title} is running at http://localhost:${port}`];
  if (isLaunched()) {
    // The root launcher resolved the database and says which; it prints these lines with the other app's.
    process.send?.({ type: "ready", lines } satisfies ReadyMessage);
  } else {
    console.log(`Database: ${databaseLabel}`);
    for (const line of lines) console.log(line);
  }
}
