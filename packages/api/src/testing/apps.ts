import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { type Browser, chromium, type Page } from "playwright-core";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";

export type RunningServer = {
  url: string;
  output: () => string;
  /** Sends a signal to the server's process group; resolves with the exit code. */
  signal: (signal: NodeJS.Signals) => Promise<number | null>;
  stop: () => Promise<void>;
};

/**
 * Starts an app's production server (its server.ts, as `npm start` runs it) in its own process group on a free port
 * (`portSetting=0`), with a data folder of its own (never the repository's .data), and resolves once it prints
 * "<title> is running at <url>".
 */
export async function startAppServer(options: {
  /** The app's folder (apps/web, apps/design). */
  appDir: string;
  /** The setting naming its port (`PORT`, `DESIGN_PORT`). */
  portSetting: string;
  env: Record<string, string | undefined>;
}): Promise<RunningServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `shelf-${path.basename(options.appDir)}-`));
  // Node with tsx's loader, as `npm start` runs the servers (tsx's own command would be a second Node process).
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: options.appDir,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      [options.portSetting]: "0",
      HOST: "127.0.0.1",
      SHELF_DATA_DIR: dataDir,
      ...options.env,
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 60_000);
    const check = () => {
      const match = /running at (http:\/\/localhost:\d+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve((match[1] as string).replace("localhost", "127.0.0.1"));
      }
    };
    child.stdout?.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${log}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    url,
    output: () => log,
    signal: (signal) => {
      process.kill(-(child.pid as number), signal);
      return exited;
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        process.kill(-(child.pid as number), "SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (child.exitCode === null) process.kill(-(child.pid as number), "SIGKILL");
      }
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type NpmRun = {
  npm: ChildProcess;
  /** Everything npm started is in this process group. */
  group: number;
  output: () => string;
  /** "close": every process holding its output is gone, and all it wrote has been read. */
  exited: Promise<unknown[]>;
  /** Waits for the output to match (rejects once npm exited without it, or after `ms`). */
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpExecArray>;
};

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** `npm <args>` at the repository's root as operators run it: in its own process group, its output collected. */
export function runNpm(args: string[], env: NodeJS.ProcessEnv): NpmRun {
  const npm = spawn("npm", args, { cwd: repositoryRoot, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  npm.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  npm.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  return {
    npm,
    group: npm.pid as number,
    output: () => output,
    exited: once(npm, "close"),
    waitFor: async (pattern, ms = 120_000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`no ${pattern} in:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}

/**
 * The project's own files an app's production build says its server code needs (Next's `.nft.json` traces, which
 * decide what a deployment ships): none but package.json files (Node reads their module type), else a dynamic file
 * access made the build trace the whole project.
 */
export async function tracedProjectFiles(appDir: string): Promise<string[]> {
  const buildDir = path.resolve(appDir, ".next");
  const traced = new Set<string>();
  const entries = await fs.readdir(buildDir, { recursive: true });
  for (const trace of entries.filter((entry) => entry.endsWith(".nft.json"))) {
    const { files } = JSON.parse(await fs.readFile(path.join(buildDir, trace), "utf8")) as { files: string[] };
    for (const file of files) traced.add(path.resolve(buildDir, path.dirname(trace), file));
  }
  const own = (file: string) =>
    !file.startsWith(`${buildDir}${path.sep}`) &&
    !file.split(path.sep).includes("node_modules") &&
    path.basename(file) !== "package.json";
  return [...traced].filter(own).map((file) => path.relative(appDir, file));
}

/**
 * Debian's Chromium, headless, as this machine lets it run: no sandbox (root), and none of the background
 * connections its closed network would refuse.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/**
 * Holds an exclusive lock on a table of the test's database, so a request of the server that reads it stays in
 * flight until it is released (the apps' shutdown tests).
 */
export async function holdTable(testDb: TestDatabase, table: string) {
  const client = postgres(testDb.url, { max: 1, onnotice: () => {} });
  const reserved = await client.reserve();
  await reserved`begin`;
  await reserved.unsafe(`lock table ${table} in access exclusive mode`);
  return {
    /** Resolves once a request of the server waits on the lock, however slow the machine is. */
    waitForWaiter: async () => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [row] = await testDb.sql<{ waiting: number }[]>`
          select count(*)::int as waiting from pg_locks
          where not granted and relation = ${table}::regclass
            and database = (select oid from pg_database where datname = current_database())`;
        if ((row?.waiting ?? 0) > 0) return;
        if (Date.now() > deadline) throw new Error("no request reached the locked table in 20 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    release: async () => {
      await reserved`commit`;
      reserved.release();
      await client.end();
    },
  };
}

/** What a browser suite of an app runs against: a database of its own, the app's production server on it, Chromium. */
export type PageSuite = { testDb: TestDatabase; server: RunningServer; browser: Browser; close: () => Promise<void> };

/** Opens a browser suite's database, server and browser (`close` ends them, whichever were opened). */
export async function openPageSuite(
  startServer: (env: Record<string, string | undefined>) => Promise<RunningServer>,
): Promise<PageSuite> {
  const opened: Partial<PageSuite> = {};
  const close = async () => {
    await opened.browser?.close();
    await opened.server?.stop();
    await opened.testDb?.drop();
  };
  try {
    opened.testDb = await createTestDatabase();
    opened.server = await startServer({ DATABASE_URL: opened.testDb.url });
    opened.browser = await launchChromium();
    return { testDb: opened.testDb, server: opened.server, browser: opened.browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Whether something listens on the port (on 127.0.0.1). */
export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/** Whether any process of the group is left. */
export function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a process group is still there 10 s on: a stopped app's last children (the embedded PostgreSQL's) may take
 * a moment after npm has exited, which is no leak; one still there then is.
 */
export async function groupLingers(group: number): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (groupAlive(group)) {
    if (Date.now() > deadline) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** What `/readyz` answers for an app's server as the tests start it: every store checked, memory rate limits, files. */
export const READY_AS_TESTED = {
  status: "ready",
  checks: {
    database: { reachable: true, migrated: true },
    rate_limit_store: { mode: "memory", reachable: true },
    artifact_store: { kind: "filesystem", reachable: true },
  },
};

/**
 * The shutdown timeout, checked on an app: with SHELF_SHUTDOWN_TIMEOUT_SECONDS=1, a request held in flight (its
 * credential's table locked) is cut at SIGTERM, and the server still exits 0, in well under 10 s.
 */
export function itCutsAtShutdownTimeout(
  startServer: (env: Record<string, string | undefined>) => Promise<RunningServer>,
  /** Read when the test runs (the suite's hooks have made them by then). */
  fixtures: () => { testDb: TestDatabase; table: string; path: string; token: string },
): void {
  it(
    "cuts a request that outlives the shutdown timeout and still exits",
    () => expectCut(startServer, fixtures()),
    60_000,
  );
}

async function expectCut(
  startServer: (env: Record<string, string | undefined>) => Promise<RunningServer>,
  options: {
    testDb: TestDatabase;
    /** The table the request's credential is looked up in. */
    table: string;
    path: string;
    token: string;
  },
): Promise<void> {
  const server = await startServer({ DATABASE_URL: options.testDb.url, SHELF_SHUTDOWN_TIMEOUT_SECONDS: "1" });
  const lock = await holdTable(options.testDb, options.table);
  try {
    const inFlight = fetch(`${server.url}${options.path}`, {
      headers: { authorization: `Bearer ${options.token}` },
    }).then(
      (response) => response.status,
      () => "cut",
    );
    await lock.waitForWaiter();
    const started = Date.now();
    const exited = server.signal("SIGTERM");
    expect(await inFlight).toBe("cut");
    await lock.release();
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  } finally {
    await server.stop();
  }
}

/**
 * A browser suite's database, server and browser, opened before its tests (with the folder its screenshots go to) and
 * closed after them; the fields are set once the suite's tests run.
 */
export function pageSuite(
  startServer: (env: Record<string, string | undefined>) => Promise<RunningServer>,
  shots: string,
): PageSuite {
  const suite = {} as PageSuite;
  beforeAll(async () => {
    Object.assign(suite, await openPageSuite(startServer));
    await fs.mkdir(shots, { recursive: true });
  });
  afterAll(() => suite.close?.());
  return suite;
}

/** Everything a page asked for and complained about: its console errors and page errors, the requests off `origin`. */
export function watchPage(page: Page, origin: string) {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return {
    errors,
    elsewhere: () => requests.filter((url) => new URL(url).origin !== origin && !url.startsWith("data:")),
  };
}
