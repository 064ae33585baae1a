import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_REPORT, buildState } from "@shelf/api/host";
import { accepts, groupAlive, groupLingers, runNpm, tracedProjectFiles } from "@shelf/api/testing/apps";
import { describe, expect, it } from "vitest";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsx = path.join(webDir, "../../node_modules/.bin/tsx");

function start(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      tsx,
      ["start.ts"],
      { cwd: webDir, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? null) : 0,
          stdout,
          stderr,
          ms: Date.now() - started,
        }),
    );
  });
}

describe("npm start with a wrong setting", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["a server that refuses", { DATABASE_URL: "postgres://127.0.0.1:1/shelf" }, /127\.0\.0\.1:1: connection refused/],
    [
      "a missing database",
      { DATABASE_URL: "postgres://127.0.0.1:5432/shelf_missing_db" },
      /database "shelf_missing_db" does not exist/,
    ],
    ["a missing role", { DATABASE_URL: "postgres://no_such_role@127.0.0.1:5432/test" }, /role "no_such_role"/],
    [
      "another scheme",
      { DATABASE_URL: "mysql://127.0.0.1/shelf" },
      /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/,
    ],
    [
      "an unknown host",
      { DATABASE_URL: "postgres://no-such-host.invalid/shelf" },
      /host "no-such-host\.invalid" is unknown/,
    ],
    [
      "an unreachable host",
      { DATABASE_URL: "postgres://10.255.255.1:5432/shelf", SHELF_DB_CONNECT_TIMEOUT_SECONDS: "1" },
      /no answer within 1 s/,
    ],
    ["a bad port", { PORT: "eighty" }, /Invalid settings: PORT/],
  ];
  it.each(cases)(
    "%s: one line naming it, before any build",
    async (_, env, message) => {
      const result = await start(env);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(/^error: /);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).not.toMatch(/build/i);
      expect(result.ms).toBeLessThan(15_000);
    },
    30_000,
  );
});

describe("the build check of npm start", () => {
  it("builds when there is no build or a source changed after it, and not otherwise", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-build-"));
    try {
      const sources = ["app", "next.config.ts"];
      await fs.mkdir(path.join(dir, "app/docs"), { recursive: true });
      await fs.writeFile(path.join(dir, "app/docs/page.tsx"), "export default 1");
      await fs.writeFile(path.join(dir, "next.config.ts"), "export default {}");
      expect(buildState(dir, sources)).toEqual({ current: false, reason: "there is no build yet" });
      await fs.mkdir(path.join(dir, ".next"));
      await fs.writeFile(path.join(dir, ".next/BUILD_ID"), "x");
      const later = new Date(Date.now() + 5000);
      await fs.utimes(path.join(dir, ".next/BUILD_ID"), later, later);
      expect(buildState(dir, sources)).toEqual({ current: true });
      // A test beside the sources changed: the build is still current.
      await fs.writeFile(path.join(dir, "app/docs/page.test.ts"), "export {}");
      const tested = new Date(Date.now() + 10_000);
      await fs.utimes(path.join(dir, "app/docs/page.test.ts"), tested, tested);
      expect(buildState(dir, sources)).toEqual({ current: true });
      const edited = new Date(Date.now() + 10_000);
      await fs.utimes(path.join(dir, "app/docs/page.tsx"), edited, edited);
      expect(buildState(dir, sources)).toEqual({
        current: false,
        reason: "app/docs/page.tsx changed since the last build",
      });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

// The root `npm start` (both apps, one launcher) is tested with the design app (apps/design/test/start.test.ts).
describe("stopping npm start of the web app alone", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s to the npm process alone drains and stops the server and the embedded PostgreSQL",
    async (signal) => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-npm-start-"));
      const { DATABASE_URL: _, ...env } = process.env;
      // As operators and process managers run one app alone: `npm start -w`, its own process group.
      const { npm, group, output, exited, waitFor } = runNpm(["run", "start", "-w", "@shelf/web"], {
        ...env,
        PORT: "0",
        HOST: "127.0.0.1",
        SHELF_DATA_DIR: dataDir,
        SHELF_SKIP_BUILD: "true",
      });
      try {
        const port = Number((await waitFor(/running at http:\/\/localhost:(\d+)/, 90_000))[1]);
        const databasePort = Number(/embedded PostgreSQL on port (\d+)/.exec(output())?.[1]);
        expect(await accepts(port)).toBe(true);
        expect(await accepts(databasePort)).toBe(true);

        npm.kill(signal);
        const [code] = await Promise.race([
          exited,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`npm did not exit:\n${output()}`)), 30_000),
          ),
        ]);
        // 0 only from the server's own shutdown (drained, pool and database closed), never from a killed process.
        expect(code).toBe(0);
        expect(await accepts(port)).toBe(false);
        expect(await accepts(databasePort)).toBe(false);
        expect(await groupLingers(group)).toBe(false);
      } finally {
        if (groupAlive(group)) process.kill(-group, "SIGKILL");
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});

describe("the first npm start", () => {
  it("prints the database, the build's progress in a few lines and the banner, no warning; the build ships no source", async () => {
    // A first start: no build yet, as on a fresh checkout.
    await fs.rm(path.join(webDir, ".next"), { recursive: true, force: true });
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-first-start-"));
    const { DATABASE_URL: _, SHELF_SKIP_BUILD: __, ...env } = process.env;
    const { npm, group, output, exited, waitFor } = runNpm(["run", "--silent", "start", "-w", "@shelf/web"], {
      ...env,
      PORT: "0",
      HOST: "127.0.0.1",
      SHELF_DATA_DIR: dataDir,
    });
    try {
      await waitFor(/running at http:\/\/localhost:\d+\n/, 600_000);
      const lines = output().trimEnd().split("\n");
      expect(lines[0]).toBe("Building the web app: there is no build yet...");
      expect(lines).toContain("The web app is built.");
      expect(lines.filter((line) => line.startsWith("Database: "))).toHaveLength(1);
      expect(lines.at(-1)).toMatch(/^Shelf is running at /);
      // The build's progress, the server's lines: nothing else, and no route table.
      expect(lines.length).toBeLessThanOrEqual(15);
      expect(output()).not.toMatch(/warn|⚠/i);
      expect(await fs.readFile(path.join(webDir, BUILD_REPORT), "utf8")).not.toMatch(/warn|⚠/i);
      expect(await tracedProjectFiles(webDir)).toEqual([]);
      npm.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    } finally {
      if (groupAlive(group)) process.kill(-group, "SIGKILL");
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 660_000);
});
