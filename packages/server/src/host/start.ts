import type http from "node:http";
import type { Duplex } from "node:stream";
import { createDb, type Database } from "@shelf/db";
import { createDatabaseHealth, type DatabaseHealth, type DbEnv, resolveDatabase, timeoutsOf } from "@shelf/db/server";
import { hostNames } from "../edge/hosts";
import type { Edge } from "../edge/pipeline";
import { createEdgeServer, type EdgeServerOptions } from "../edge/server";
import { createLogger, type LogEnv, type Logger } from "../log";
import { createMetrics } from "../metrics";
import type { Periodic } from "../periodic";
import { createRateLimiter, type RateLimiter } from "../rate-limit";
import { isLaunched, type ReadyMessage } from "./launch";
import { type PageHeaderOptions, pageHeaders } from "./page-headers";
import { withPageStatus } from "./page-status";
import { servedWithoutDatabase, type UnavailablePage, unavailableStatus } from "./unavailable-page";

/** Next's server as the start-up drives it: the app makes it (`next({ dev, dir })`), so Next stays in the apps. */
export type PageServer = {
  prepare: () => Promise<void>;
  getRequestHandler: () => (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  getUpgradeHandler: () => (req: http.IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;
};

/**
 * The settings the start-up reads, by their names in the environment: a host's configuration holds them among its
 * own, read and checked once at start, and hands them over as they are.
 */
export type StartSettings = {
  /** Anything but `production` runs Next in development mode (`npm run dev`). */
  NODE_ENV: string;
  /** The address the server listens on. */
  HOST: string;
  /** The rate limiter's name in its store: instances of one app count together, apps sharing a Redis apart. */
  SHELF_RATE_LIMIT_NAMESPACE: string;
  /** Requests per minute per credential (per client address without one), for every edge of the app. */
  SHELF_RATE_LIMIT_PER_MINUTE: number;
  /** Where every instance counts its limits; unset, each instance counts in its own memory. */
  REDIS_URL?: string;
  /** Read the client address from X-Forwarded-For, as appended by the one proxy in front. */
  SHELF_TRUST_PROXY: boolean;
  /** The older front host's origins: they are served the edges' paths only. */
  SHELF_LEGACY_URL?: string[];
  /** How long requests in flight may take to finish once SIGTERM arrives. */
  SHELF_SHUTDOWN_TIMEOUT_SECONDS: number;
  /** How long after SIGTERM the instance keeps serving while /readyz answers 503 (a balancer's checks). */
  SHELF_DRAIN_SECONDS: number;
  /** Connections of this instance's database pool. */
  SHELF_DB_POOL_SIZE: number;
  /** Opens /metrics to whoever sends it as a bearer token; unset, only this machine (loopback) may read it. */
  SHELF_METRICS_TOKEN?: string;
};

/** What the start-up makes before the server listens, whatever the host serves; the host's services join it. */
export type HostCore<Config> = {
  config: Config;
  /** Next runs in development mode (`npm run dev`). */
  dev: boolean;
  log: Logger;
  db: Database;
  /** How long a request (or a render) may wait for the database before giving up. */
  dbDeadlineMs: number;
  /** The database's health, shared by the edges and the pages: a failure seen anywhere makes later requests fail fast. */
  health: DatabaseHealth;
  /** Requests per minute per credential (per client address without one), for every edge of the app. */
  rateLimiter: RateLimiter;
  /** A limiter of the app's own (sign-up forms, client registration), in the same store; closed at shutdown. */
  limiter: (name: string, perMinute: number) => RateLimiter;
};

/** The server listens: the port, and so the public base URL, are known. */
export type Listening = {
  port: number;
  /** The app's public base URL: its setting (`SHELF_BASE_URL`, `SHELF_DESIGN_URL`), else http://localhost:<port>. */
  baseUrl: string;
};

/** The start-up's part of what every edge of an app is made with; the host adds the services its edges carry. */
export type EdgeCore = Pick<HostCore<unknown>, "db" | "dbDeadlineMs" | "health" | "log" | "rateLimiter"> & {
  baseUrl: string;
  /** Makes the limiter of a route's own limit, in the main limiter's store; the edge that asked closes it. */
  routeLimiter: (name: string, perMinute: number) => RateLimiter;
  trustProxy: boolean;
};

/** What the start-up has made before the server listens, with the host's services that need no URL. */
export type StartBasics<Config, Loaded> = HostCore<Config> & Loaded;

/** The start-up once the server listens, with all the host's services and what its edges are made with. */
export type StartedHost<Config, Loaded, Made, EdgeBasics> = StartBasics<Config, Loaded> &
  Listening &
  Made & { edge: EdgeBasics };

/**
 * What the host (the API) hands the start-up, which knows none of it by name: the services it serves with, made in
 * two steps around `listen`, what /readyz asks of them, what its edges are made with, and its periodic jobs.
 */
export type HostServices<Config, Loaded, Made, EdgeBasics> = {
  /** Before the server listens: the services that need no URL (the artifact store, the signing keys). */
  load: (core: HostCore<Config>) => Promise<Loaded>;
  /**
   * What /readyz asks besides the database and the rate-limit store, by the name its answer gives (`artifact_store`):
   * each says whether what it checks is reachable, cheaply enough to be asked every second.
   */
  readiness?: (loaded: Loaded) => Record<string, () => Promise<{ reachable: boolean }>>;
  /** Once the server listens: the services that need the public base URL (links point there). */
  make: (host: StartBasics<Config, Loaded> & Listening) => Promise<Made>;
  /** What every edge of the app is made with: the start-up's part and the host's services its edges carry. */
  edge: (host: StartBasics<Config, Loaded> & Listening & Made, core: EdgeCore) => EdgeBasics;
  /** Jobs run on a timer (housekeeping): started once the app is mounted, stopped once the server has drained. */
  jobs?: (host: StartedHost<Config, Loaded, Made, EdgeBasics>) => Periodic[];
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

/** An app as the start-up runs it: its own part, its configuration, and the pages' outage page in its words. */
export type HostedApp<Config extends { db: DbEnv; log: LogEnv }, Prepared, Basics, Running> = {
  /** The app's name in its log lines (`app`). */
  name: string;
  /** How the terminal names it: "Shelf", "The design host" (then "is running at <url>"). */
  title: string;
  /** The app's configuration, handed to its steps; the database's and the log's settings are read from it. */
  config: Config;
  /** The settings the start-up itself reads. */
  settings: StartSettings;
  port: number;
  /** The public base URL setting; unset: http://localhost:<port>. */
  publicUrl: string | undefined;
  /** Makes Next's server for the app's folder. */
  pages: (options: { dev: boolean }) => PageServer;
  /** The page a request gets while the database does not answer. */
  unavailable: UnavailablePage;
  /** The most bytes a page request's body may hold, by path (undefined: the server's default, 1 MiB). */
  pageBodyLimit?: (path: string) => number | undefined;
  /** Origins a page's forms may lead to besides this site (the OAuth consent page's redirect). */
  formTargets?: PageHeaderOptions["formTargets"];
  /** Before the server listens: what takes a while and needs no URL (the demo data, secrets). */
  prepare?: (host: Basics) => Promise<Prepared>;
  /** Once it listens: the app's own edges and its pages' runtime. */
  mount: (host: Running, prepared: Prepared) => Promise<Mounted>;
};

/**
 * The one start-up of every app's process: the database resolved (embedded or DATABASE_URL) and watched, one pool
 * and one rate limiter, metrics and JSON logs, the edge server with the operator's endpoints (/healthz, /readyz,
 * /metrics), Next.js for the pages behind the same security headers and outage answers, and a graceful stop on
 * SIGTERM or SIGINT. The host hands it what is its own (`services`: what it serves with, what its edges are made
 * with, its periodic jobs), and the app its port and URL, its edges, its pages.
 */
export async function startHost<Config extends { db: DbEnv; log: LogEnv }, Prepared, Loaded, Made, EdgeBasics>(
  app: HostedApp<Config, Prepared, StartBasics<Config, Loaded>, StartedHost<Config, Loaded, Made, EdgeBasics>>,
  services: HostServices<Config, Loaded, Made, EdgeBasics>,
): Promise<void> {
  const { settings, config } = app;
  const dev = settings.NODE_ENV !== "production";
  const log = createLogger(config.log, { app: app.name });
  /** Set once SIGTERM or SIGINT arrives: /readyz answers 503, and an embedded server it owns may go. */
  let stopping = false;
  const database = await resolveDatabase(config.db, {
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
    createRateLimiter({ points, redisUrl: settings.REDIS_URL, name: `${namespace}:${name}` });
  const rateLimiter = createRateLimiter({
    points: settings.SHELF_RATE_LIMIT_PER_MINUTE,
    redisUrl: settings.REDIS_URL,
    name: namespace,
  });
  const metrics = createMetrics({ database: health, poolSize: settings.SHELF_DB_POOL_SIZE, rateLimiter });
  const pool = createDb(database.url, { max: settings.SHELF_DB_POOL_SIZE, timeouts: timeoutsOf(config.db) });
  const ownLimiters: RateLimiter[] = [];
  const core: HostCore<Config> = {
    config,
    dev,
    log,
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    health,
    rateLimiter,
    limiter: (name, perMinute) => {
      const limiter = limiterOf(name, perMinute);
      ownLimiters.push(limiter);
      return limiter;
    },
  };
  const loaded = await services.load(core);
  const checks = services.readiness?.(loaded) ?? {};
  const basics: StartBasics<Config, Loaded> = { ...core, ...loaded };
  const prepared = (await app.prepare?.(basics)) as Prepared;

  const pages = app.pages({ dev });
  await pages.prepare();
  // Links need the public base URL, known once the port is (a port of 0 picks a free one): edges come after listen.
  const edges: Edge[] = [];
  const httpServer = createEdgeServer({
    edges,
    fallback: pageFallback(app, { handle: pages.getRequestHandler(), health, dev }),
    upgrade: pages.getUpgradeHandler(),
    pageBodyLimit: app.pageBodyLimit,
    log,
    trustProxy: settings.SHELF_TRUST_PROXY,
    legacyHosts: (settings.SHELF_LEGACY_URL ?? []).flatMap(hostNames),
    ops: {
      metrics,
      metricsToken: settings.SHELF_METRICS_TOKEN,
      readiness: async () => {
        if (stopping) return { ready: false, checks: { shutdown: "draining" } };
        const named = Object.entries(checks);
        const [db, store, ...answers] = await Promise.all([
          health.check(),
          rateLimiter.store(),
          ...named.map(([, check]) => check()),
        ]);
        return {
          ready: db.reachable && db.migrated && store.reachable && answers.every((answer) => answer.reachable),
          checks: {
            database: db,
            rate_limit_store: store,
            ...Object.fromEntries(named.map(([name], index) => [name, answers[index]])),
          },
        };
      },
    },
  });
  const port = await httpServer.listen(app.port, settings.HOST);
  const listening = { ...basics, port, baseUrl: app.publicUrl ?? `http://localhost:${port}` };
  const made = { ...listening, ...(await services.make(listening)) };
  const running: StartedHost<Config, Loaded, Made, EdgeBasics> = {
    ...made,
    edge: services.edge(made, {
      db: pool.db,
      dbDeadlineMs: pool.deadlineMs,
      health,
      log,
      baseUrl: listening.baseUrl,
      rateLimiter,
      // Routes' own limits (crash reports: 5 a minute per address) share the main limiter's store; their edge closes them.
      routeLimiter: limiterOf,
      trustProxy: settings.SHELF_TRUST_PROXY,
    }),
  };
  const mounted = await app.mount(running, prepared);
  edges.push(...mounted.edges);
  const storesReady = await Promise.all([rateLimiter.ready(), ...mounted.edges.map((edge) => edge.ready())]);
  if (!storesReady.every(Boolean)) log.warn("Redis did not answer: rate limits are counted per instance until it does");
  const jobs = services.jobs?.(running) ?? [];

  announce(app, { log, port, baseUrl: running.baseUrl, embeddedPort: database.embedded?.port, lines: mounted.lines });

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
    await Promise.all(jobs.map((job) => job.stop()));
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
 * server saw it), and while the database does not answer, the outage page at once, as the edges answer 503; a render
 * that failed because the database stopped answering meanwhile is an outage too, not a bug.
 */
function pageFallback(
  app: Pick<HostedApp<never, unknown, unknown, unknown>, "settings" | "publicUrl" | "formTargets" | "unavailable">,
  pages: { handle: ReturnType<PageServer["getRequestHandler"]>; health: DatabaseHealth; dev: boolean },
): EdgeServerOptions["fallback"] {
  const { handle, health, dev } = pages;
  return async (req, res) => {
    pageHeaders(req, res, {
      trustProxy: app.settings.SHELF_TRUST_PROXY,
      dev,
      https: app.publicUrl?.startsWith("https:"),
      formTargets: app.formTargets,
    });
    const path = (req.url ?? "/").split("?", 1)[0] as string;
    if (!servedWithoutDatabase(path) && !(health.up && (await health.check()).reachable)) {
      return app.unavailable.answer(req, res);
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
  app: { title: string },
  started: { log: Logger; port: number; baseUrl: string; embeddedPort: number | undefined; lines?: string[] },
) {
  const { log, port, baseUrl, embeddedPort } = started;
  const databaseLabel = embeddedPort === undefined ? "DATABASE_URL" : `embedded PostgreSQL on port ${embeddedPort}`;
  log.info({ port, baseUrl, database: databaseLabel }, "listening");
  const lines = [...(started.lines ?? []), `${app.title} is running at http://localhost:${port}`];
  if (isLaunched()) {
    // The root launcher resolved the database and says which; it prints these lines with the other app's.
    process.send?.({ type: "ready", lines } satisfies ReadyMessage);
  } else {
    console.log(`Database: ${databaseLabel}`);
    for (const line of lines) console.log(line);
  }
}
