import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import S3rver from "@20minutes/s3rver";
import { loadDataFolderSecret, loadSigningKeyring } from "@shelf/api";
import { APP_NODE_FLAGS, buildState } from "@shelf/api/host";
import { startEmbeddedPostgres } from "@shelf/db/server";
import { haproxyConfig, serverResponses, serverStates } from "./haproxy";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export type AppName = "web" | "design";

const APPS: Record<AppName, { dir: string; portSetting: string }> = {
  web: { dir: path.join(root, "apps/web"), portSetting: "PORT" },
  design: { dir: path.join(root, "apps/design"), portSetting: "DESIGN_PORT" },
};

/** How long an instance keeps serving after SIGTERM with /readyz at 503: more than the proxy's inter x fall (2 s). */
export const DRAIN_SECONDS = 3;

export type ClusterOptions = {
  web: number;
  design: number;
  /** Secrets, signing keys, the S3 server's files, the embedded database, each instance's own folder. */
  dataDir: string;
  /** The shared database; unset: an embedded PostgreSQL in the data folder. */
  databaseUrl?: string;
  /** The shared Redis; unset: a private redis-server on a free port. */
  redisUrl?: string;
  /** The proxy's ports (0 or unset: free ones). */
  webPort?: number;
  designPort?: number;
  /** Settings for every instance on top of the cluster's (SHELF_DEMO, an S3 bucket of your own, ...). */
  env?: Record<string, string | undefined>;
  /** Progress lines for the person at the terminal. */
  say?: (line: string) => void;
  /** Also write each instance's and HAProxy's output to `<name>.log` in the data folder's logs/ (the script). */
  logFiles?: boolean;
};

export type Instance = {
  /** `web-1`, `design-2`: also its `server` name in HAProxy. */
  name: string;
  app: AppName;
  port: number;
  /** Its own address, bypassing the proxy. */
  url: string;
  pid: () => number | undefined;
  running: () => boolean;
  /** Sends a signal to the instance's process group; resolves once it has exited (with its exit code). */
  signal: (signal: NodeJS.Signals) => Promise<number | null>;
  /** Starts it again on the same port (after it stopped); resolves once it is ready. */
  start: () => Promise<void>;
  /** The last 256 KiB of its output. */
  output: () => string;
  /** What it said when ready (the demo's key and sign-in, if any). */
  lines: () => string[];
};

export type Cluster = {
  webUrl: string;
  designUrl: string;
  databaseUrl: string;
  redisUrl: string;
  /** The settings the cluster gives every instance on top of the environment (secrets, S3, URLs, proxy trust). */
  settings: Record<string, string>;
  instances: Instance[];
  /** The proxy's view of each instance (`show servers state`): its operational state, 2 is UP, 0 is DOWN. */
  serverStates: () => Promise<Map<string, number>>;
  /** How many answers each instance has sent through the proxy (`show stat`: its hrsp_* counters), by `app/name`. */
  serverResponses: () => Promise<Map<string, number>>;
  haproxyOutput: () => string;
  /** Stops the instances (SIGTERM, in parallel), HAProxy, then Redis, S3 and the database it started. */
  stop: () => Promise<void>;
};

/** A free TCP port on the loopback interface (the instances and the proxy are given theirs before they start). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}

/** Whether something accepts TCP connections on this loopback port. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function waitForPort(port: number, what: string, exited: () => boolean): Promise<void> {
  for (let attempt = 0; !(await accepts(port)); attempt++) {
    if (exited()) throw new Error(`${what} stopped before it listened`);
    if (attempt > 200) throw new Error(`${what} did not listen on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Builds an app when a source changed since its last build, as `npm start` does. */
async function ensureBuilt(app: AppName, say: (line: string) => void): Promise<void> {
  const { dir } = APPS[app];
  const state = buildState(dir);
  if (state.current) return;
  say(`Building the ${app} app: ${state.reason}...`);
  const build = spawn(path.join(root, "node_modules/.bin/next"), ["build"], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const [code] = await once(build, "exit");
  if (code !== 0) throw new Error(`the ${app} app did not build (exit code ${code})`);
}

/**
 * The secrets every instance must share, made once in the data folder and reused by every later start: the session
 * cookies' key, the signed download links' key, the signing key set (Sparkle and JWS), and the demo data's secret.
 */
async function sharedSecrets(dataDir: string) {
  const dir = path.join(dataDir, "secrets");
  const signingKeysFile = path.join(dir, "signing-keys.json");
  await loadSigningKeyring(signingKeysFile);
  return {
    env: {
      SHELF_AUTH_SECRET: await loadDataFolderSecret(dir, "auth-secret"),
      SHELF_DOWNLOAD_SECRET: await loadDataFolderSecret(dir, "download-secret"),
      SHELF_SIGNING_KEYS_FILE: signingKeysFile,
    },
    demoSecret: await loadDataFolderSecret(dir, "demo-secret"),
  };
}

/** What the guard (deploy/guard.ts) is told: one line of its protocol. */
type Guard = { note: (line: string) => void; stop: () => Promise<void> };

/**
 * Starts the guard: a process in a session of its own that stops what this process started once its stdin pipe
 * closes, which happens when this process dies, even by SIGKILL. `stop` closes the pipe after everything stopped.
 */
function startGuard(): Guard {
  const guard = spawn(process.execPath, ["--import", "tsx", path.join(root, "deploy/guard.ts")], {
    cwd: root,
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  const exited = once(guard, "exit").catch(() => {});
  guard.on("error", () => {});
  guard.stdin?.on("error", () => {});
  // Neither the guard nor its pipe keeps this process alive.
  guard.unref();
  (guard.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    note: (line) => {
      guard.stdin?.write(`${line}\n`);
    },
    stop: async () => {
      if (guard.exitCode !== null || guard.signalCode !== null) return;
      // Waited for: without this, a launcher whose start failed would have nothing left to keep it alive, and would
      // exit (code 13, an unsettled wait) before printing why.
      guard.ref();
      guard.stdin?.end();
      await exited;
    },
  };
}

async function startRedis(dataDir: string, guard: Guard) {
  const port = await freePort();
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dataDir],
    // Its own process group: a Ctrl-C at the terminal reaches the launcher alone, which stops everything in order.
    { stdio: "ignore", detached: true },
  );
  const pid = server.pid;
  if (pid) {
    guard.note(`group ${pid} SIGTERM`);
    server.once("exit", () => guard.note(`ungroup ${pid}`));
  }
  const failed = new Promise<Error>((resolve) => server.once("error", resolve));
  await Promise.race([
    waitForPort(port, "redis-server", () => server.exitCode !== null),
    failed.then((error) => {
      throw new Error(`redis-server could not be started (${error.message}): install it or set REDIS_URL`);
    }),
  ]);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      server.kill("SIGTERM");
      await once(server, "exit");
    },
  };
}

/** An S3-compatible server (s3rver) in this process, its objects in the data folder: the instances' shared bucket. */
async function startS3(dataDir: string) {
  const bucket = "shelf-artifacts";
  const port = await freePort();
  const server = new S3rver({
    port,
    address: "127.0.0.1",
    silent: true,
    directory: path.join(dataDir, "s3"),
    configureBuckets: [{ name: bucket }],
  });
  await server.run();
  return {
    env: {
      SHELF_S3_BUCKET: bucket,
      SHELF_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      SHELF_S3_ACCESS_KEY_ID: "S3RVER",
      SHELF_S3_SECRET_ACCESS_KEY: "S3RVER",
      SHELF_S3_FORCE_PATH_STYLE: "true",
    },
    stop: () => server.close(),
  };
}

const withoutEmpty = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""),
  );

/**
 * A whole deployment on this machine: one PostgreSQL, one Redis and one S3-compatible server, `web` + `design`
 * instances sharing secrets and signing keys, HAProxy in front. The instances start at the same moment (the first to
 * take the migration lock migrates; the others wait for it). Every process started here is stopped by `stop`; if this
 * process dies instead, even by SIGKILL, the guard (deploy/guard.ts) stops them (and each instance also stops by
 * itself: it watches its IPC channel).
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const say = options.say ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const cleanups: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  };
  // Stopped last: once everything else is, it finds nothing left and exits.
  const guard = startGuard();
  cleanups.push(guard.stop);
  try {
    for (const app of ["web", "design"] as const) if (options[app] > 0) await ensureBuilt(app, say);

    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "database") });
      cleanups.push(embedded.stop);
      // Fast shutdown (SIGINT) if this process dies: the postmaster is read from the pid file then.
      if (embedded.owned) guard.note(`pidfile ${embedded.pidFile} SIGINT`);
      databaseUrl = embedded.url;
      say(`Database: embedded PostgreSQL on port ${embedded.port}`);
    } else say("Database: DATABASE_URL");

    let redisUrl = options.redisUrl;
    if (!redisUrl) {
      const redis = await startRedis(dataDir, guard);
      cleanups.push(redis.stop);
      redisUrl = redis.url;
      say(`Redis: a redis-server of the cluster's own at ${redisUrl}`);
    } else say("Redis: REDIS_URL");

    let s3Env: Record<string, string> = {};
    const bucket = options.env?.SHELF_S3_BUCKET ?? process.env.SHELF_S3_BUCKET;
    if (!bucket) {
      const s3 = await startS3(dataDir);
      cleanups.push(s3.stop);
      s3Env = s3.env;
      say(`Artifacts: an S3-compatible server (s3rver) at ${s3.env.SHELF_S3_ENDPOINT}, files in ${dataDir}/s3`);
    } else say(`Artifacts: the S3 bucket ${bucket}`);

    const secrets = await sharedSecrets(dataDir);
    const webPort = options.webPort || (await freePort());
    const designPort = options.designPort || (await freePort());
    const webUrl = `http://localhost:${webPort}`;
    const designUrl = `http://localhost:${designPort}`;
    const settings: Record<string, string> = {
      // Secrets the environment sets itself win over the data folder's.
      ...secrets.env,
      ...withoutEmpty(process.env),
      ...s3Env,
      ...withoutEmpty(options.env ?? {}),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      // Only the proxy reaches the instances, so the last X-Forwarded-For entry (the proxy's) is the client.
      HOST: "127.0.0.1",
      SHELF_TRUST_PROXY: "true",
      SHELF_DRAIN_SECONDS: String(DRAIN_SECONDS),
      SHELF_BASE_URL: webUrl,
      SHELF_DESIGN_URL: designUrl,
    };
    const sharedEnv = { ...settings, SHELF_LAUNCHER: "ipc" };

    const logDir = options.logFiles ? path.join(dataDir, "logs") : undefined;
    if (logDir) await fs.mkdir(logDir, { recursive: true });
    const instances: Instance[] = [];
    for (const app of ["web", "design"] as const) {
      for (let index = 1; index <= options[app]; index++) {
        const name = `${app}-${index}`;
        const instanceDir = path.join(dataDir, "instances", name);
        await fs.mkdir(instanceDir, { recursive: true });
        // The demo data's secret has no setting of its own: every instance's data folder holds the same file.
        await fs.writeFile(path.join(instanceDir, "demo-secret"), secrets.demoSecret, { mode: 0o600 });
        instances.push(
          makeInstance({
            name,
            app,
            port: await freePort(),
            env: { ...sharedEnv, SHELF_DATA_DIR: instanceDir, [APPS[app].portSetting]: undefined },
            logFile: logDir && path.join(logDir, `${name}.log`),
            guard,
          }),
        );
      }
    }
    cleanups.push(() => Promise.all(instances.map((instance) => instance.signal("SIGTERM"))));
    say(`Starting ${instances.map((instance) => instance.name).join(", ")}...`);
    await Promise.all(instances.map((instance) => instance.start()));

    const runtimeDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-haproxy-"));
    cleanups.push(() => fs.rm(runtimeDir, { recursive: true, force: true }));
    guard.note(`remove ${runtimeDir}`);
    const runtimeSocket = path.join(runtimeDir, "admin.sock");
    const configFile = path.join(dataDir, "haproxy.cfg");
    await fs.writeFile(
      configFile,
      await haproxyConfig({ bind: "127.0.0.1", webPort, designPort, runtimeSocket, instances }),
    );
    const haproxy = await startHaproxy(configFile, logDir && path.join(logDir, "haproxy.log"), guard);
    cleanups.push(haproxy.stop);
    await waitForPort(webPort, "HAProxy", () => !haproxy.running());
    await waitForPort(designPort, "HAProxy", () => !haproxy.running());
    // Ready when the proxy's first checks have seen every instance up.
    for (let attempt = 0; ; attempt++) {
      const states = await serverStates(runtimeSocket);
      if (instances.every((instance) => states.get(`${instance.app}/${instance.name}`) === 2)) break;
      if (attempt > 100) throw new Error("HAProxy did not see every instance up within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    say(`HAProxy configuration: ${configFile}`);
    return {
      webUrl,
      designUrl,
      databaseUrl,
      redisUrl,
      settings,
      instances,
      serverStates: () => serverStates(runtimeSocket),
      serverResponses: () => serverResponses(runtimeSocket),
      haproxyOutput: haproxy.output,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function makeInstance(options: {
  name: string;
  app: AppName;
  port: number;
  env: Record<string, string | undefined>;
  logFile: string | undefined;
  guard: Guard;
}): Instance {
  const { dir, portSetting } = APPS[options.app];
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  const output = outputOf(options.logFile);
  let lines: string[] = [];
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  return {
    name: options.name,
    app: options.app,
    port: options.port,
    url: `http://127.0.0.1:${options.port}`,
    pid: () => child?.pid,
    running,
    output: output.text,
    lines: () => lines,
    signal: async (signal) => {
      if (!running() || !child?.pid) return exited;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
      return exited;
    },
    start: async () => {
      if (running()) throw new Error(`${options.name} is already running`);
      const started = spawn(process.execPath, [...APP_NODE_FLAGS, "--import", "tsx", "server.ts"], {
        cwd: dir,
        env: { ...options.env, [portSetting]: String(options.port) } as NodeJS.ProcessEnv,
        // Its own process group, so a signal reaches whatever it starts; the IPC channel stops it if we die.
        detached: true,
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      });
      child = started;
      const pid = started.pid;
      if (pid) {
        options.guard.note(`group ${pid} SIGTERM`);
        started.once("exit", () => options.guard.note(`ungroup ${pid}`));
      }
      started.stdout?.on("data", output.append);
      started.stderr?.on("data", output.append);
      exited = new Promise((resolve) =>
        started.once("exit", (code, signal) => resolve(code ?? (signal ? 128 + os.constants.signals[signal] : null))),
      );
      const ready = await Promise.race([
        new Promise<true>((resolve) =>
          started.on("message", (message) => {
            const ready = message as { type?: string; lines?: string[] };
            if (ready?.type !== "ready") return;
            lines = ready.lines ?? [];
            resolve(true);
          }),
        ),
        exited.then(() => false),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 180_000).unref()),
      ]);
      if (!ready) {
        if (running()) process.kill(-(started.pid as number), "SIGKILL");
        throw new Error(`${options.name} did not start:\n${output.text().slice(-4000)}`);
      }
    },
  };
}

/** A process's output: its last 256 KiB in memory, and all of it in a file when one is given. */
function outputOf(file: string | undefined) {
  const LIMIT = 256 * 1024;
  let text = "";
  return {
    text: () => text,
    append: (chunk: Buffer) => {
      text += chunk;
      if (text.length > LIMIT) text = text.slice(-LIMIT);
      if (file) appendFileSync(file, chunk);
    },
  };
}

async function startHaproxy(configFile: string, logFile: string | undefined, guard: Guard) {
  const check = spawn("haproxy", ["-c", "-q", "-f", configFile], { stdio: ["ignore", "ignore", "pipe"] });
  let checkOutput = "";
  check.stderr?.on("data", (chunk) => {
    checkOutput += chunk;
  });
  const [checked] = await Promise.race([
    once(check, "exit"),
    once(check, "error").then(([error]) => {
      throw new Error(`haproxy could not be run (${(error as Error).message}): run scripts/ensure-test-deps.sh`);
    }),
  ]);
  if (checked !== 0) throw new Error(`haproxy rejects ${configFile}:\n${checkOutput}`);
  const server = spawn("haproxy", ["-db", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  const pid = server.pid;
  if (pid) {
    guard.note(`group ${pid} SIGTERM`);
    server.once("exit", () => guard.note(`ungroup ${pid}`));
  }
  const output = outputOf(logFile);
  server.stdout?.on("data", output.append);
  server.stderr?.on("data", output.append);
  const running = () => server.exitCode === null && server.signalCode === null;
  return {
    running,
    output: output.text,
    stop: async () => {
      if (!running()) return;
      const exited = once(server, "exit");
      server.kill("SIGTERM");
      await exited;
    },
  };
}
