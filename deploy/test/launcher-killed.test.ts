import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { accepts } from "../cluster";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Every live process: its parent, its process group, its command. */
function processes(): { pid: number; ppid: number; pgid: number; command: string }[] {
  return execFileSync("ps", ["-eo", "pid=,ppid=,pgid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => {
      const [pid, ppid, pgid, ...command] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), command: command.join(" ") };
    });
}

/** The process and everything under it (children, their children, ...). */
function descendants(pid: number): Set<number> {
  const all = processes();
  const found = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const process of all) {
      if (found.has(process.ppid) && !found.has(process.pid)) {
        found.add(process.pid);
        grew = true;
      }
    }
  }
  return found;
}

/** The script's environment as an operator runs it: its own embedded PostgreSQL, redis-server and S3 server. */
function launcherEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SHELF_DEMO: "false", SHELF_HOUSEKEEPING_INTERVAL_MINUTES: "0" };
  // Nor the test run's settings (its log file, NODE_ENV=test, VITEST..., and Vite's BASE_URL, MODE, DEV, PROD, SSR).
  for (const name of Object.keys(env)) {
    if (/^(VITEST|SHELF_LOG_FILE$|SHELF_TEST_|NODE_ENV$|TEST$|BASE_URL$|MODE$|DEV$|PROD$|SSR$)/.test(name)) {
      delete env[name];
    }
  }
  for (const name of ["DATABASE_URL", "REDIS_URL", "SHELF_S3_BUCKET"]) delete env[name];
  return env;
}

let launcher: ChildProcess | undefined;
let dataDir: string | undefined;
let started = new Set<number>();

afterAll(async () => {
  // Whatever happened, nothing of this test is left running.
  for (const pid of started) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
  if (launcher?.exitCode === null) launcher.kill("SIGKILL");
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

it("a SIGKILLed launcher leaves no process it started running, nor a port taken", async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-cluster-killed-"));
  // mkdtemp makes it 0700: as root, the embedded PostgreSQL runs as `postgres`, which must enter it.
  await fs.chmod(dataDir, 0o755);
  // The script as an operator runs it: its own embedded PostgreSQL, redis-server, S3 server and HAProxy.
  const env = launcherEnv();
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/cluster.ts", "--web", "1", "--design", "1", "--port", "0", "--design-port", "0"],
    { cwd: root, env: { ...env, SHELF_CLUSTER_DATA_DIR: dataDir }, stdio: ["ignore", "pipe", "pipe"] },
  );
  launcher = child;
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await Promise.race([
    new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes("Ctrl-C stops everything.")) resolve();
        // Its output, which may come after its exit, says why.
        else if (child.exitCode !== null)
          setTimeout(
            () => reject(new Error(`the launcher exited (${child.exitCode} ${child.signalCode}):\n${output}`)),
            500,
          );
        if (child.exitCode !== null || output.includes("Ctrl-C")) clearInterval(timer);
      }, 100);
    }),
    new Promise((_, reject) => setTimeout(() => reject(new Error(`not started in 150 s:\n${output}`)), 150_000)),
  ]);

  // Every port it printed: the proxy's two, each instance's, the database's and Redis's.
  const ports = [...output.matchAll(/(?:localhost|127\.0\.0\.1):(\d+)|PostgreSQL on port (\d+)/g)].map((match) =>
    Number(match[1] ?? match[2]),
  );
  expect(new Set(ports).size).toBeGreaterThanOrEqual(6);
  for (const port of ports) expect(await accepts(port)).toBe(true);
  started = descendants(child.pid as number);
  started.delete(child.pid as number);
  const commands = processes()
    .filter((process) => started.has(process.pid))
    .map((process) => process.command)
    .join("\n");
  for (const what of ["postgres", "redis-server", "haproxy", "server.ts", "deploy/guard.ts"]) {
    expect(commands).toContain(what);
  }

  child.kill("SIGKILL");
  await exited;
  const deadline = Date.now() + 30_000;
  let left = [...started];
  while (Date.now() < deadline) {
    const live = new Set(processes().map((process) => process.pid));
    left = [...started].filter((pid) => live.has(pid));
    if (left.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(
    processes()
      .filter((process) => started.has(process.pid))
      .map((process) => process.command),
  ).toEqual([]);
  for (const port of ports) expect(await accepts(port), `port ${port}`).toBe(false);
}, 240_000);

// As root the embedded PostgreSQL runs as the postgres user: a data folder under a folder closed to others (mkdtemp's
// 0700) cannot work. The launcher used to wait on its guard with nothing keeping it alive, and exit 13 saying nothing.
it.runIf(process.getuid?.() === 0)(
  "a start that cannot go on says why, exits 1 and leaves nothing running",
  async () => {
    const closed = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-cluster-closed-"));
    const guards = () =>
      processes()
        .filter((process) => process.command.includes("deploy/guard.ts"))
        .map((process) => process.pid);
    const before = new Set(guards());
    try {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "scripts/cluster.ts", "--web", "1", "--design", "1", "--port", "0", "--design-port", "0"],
        {
          cwd: root,
          env: { ...launcherEnv(), SHELF_CLUSTER_DATA_DIR: path.join(closed, "cluster") },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout?.on("data", (chunk) => {
        output += chunk;
      });
      child.stderr?.on("data", (chunk) => {
        output += chunk;
      });
      const [code] = (await once(child, "exit")) as [number | null];
      expect({ code, output: output.trim().split("\n").at(-1) }).toEqual({
        code: 1,
        output: expect.stringMatching(
          new RegExp(
            `^error: The embedded PostgreSQL runs as the postgres user .* cannot enter ${closed} \\(mode 700\\)`,
          ),
        ),
      });
      // Its guard went with it.
      expect(guards().filter((pid) => !before.has(pid))).toEqual([]);
    } finally {
      await fs.rm(closed, { recursive: true, force: true });
    }
  },
  120_000,
);
