import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { designTokens } from "@shelf/api";
import { accepts, groupAlive, groupLingers, type NpmRun, runNpm, tracedProjectFiles } from "@shelf/api/testing/apps";
import { createDb } from "@shelf/db";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { designDir } from "./server";

const root = path.resolve(designDir, "../..");

/**
 * Whether a process of the group is still there after a few seconds: a PostgreSQL slow to write its shutdown
 * checkpoint on a loaded machine is told to stop at once after 3 s, and its backends may take a moment more.
 */
describe("npm start of the design app alone, with a wrong setting", () => {
  it.each([
    ["a bad port", { DESIGN_PORT: "eighty" }, /Invalid settings: DESIGN_PORT/],
    ["a server that refuses", { DATABASE_URL: "postgres://127.0.0.1:1/shelf" }, /127\.0\.0\.1:1: connection refused/],
  ])("%s: one line naming it, before any build", async (_, env, message) => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "npm",
        ["run", "--silent", "start", "-w", "@shelf/design"],
        { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(result.code).toBe(1);
    const errors = result.stderr.split("\n").filter((line) => line.trim() && !line.startsWith("npm warn"));
    expect(errors).toEqual([expect.stringMatching(/^error: /)]);
    expect(errors[0]).toMatch(message);
    expect(result.stdout).not.toMatch(/build/i);
  });
});

describe("the design app's production build", () => {
  it("ships none of the project's own sources: no file access makes it trace the whole project", async () => {
    expect(await tracedProjectFiles(designDir)).toEqual([]);
  });
});

type RootStart = NpmRun & { cleanup: () => Promise<void> };

/** `npm start` at the root, as operators run it: its own process group, a data folder of its own, no DATABASE_URL. */
async function rootStart(env: Record<string, string> = {}): Promise<RootStart> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-root-start-"));
  const { DATABASE_URL: _, ...inherited } = process.env;
  const run = runNpm(["start"], {
    ...inherited,
    PORT: "0",
    DESIGN_PORT: "0",
    HOST: "127.0.0.1",
    SHELF_DATA_DIR: dataDir,
    SHELF_SKIP_BUILD: "true",
    ...env,
  });
  return {
    ...run,
    cleanup: async () => {
      if (groupAlive(run.group)) process.kill(-run.group, "SIGKILL");
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

const within = <T>(promise: Promise<T>, ms: number, what: () => string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what())), ms))]);

/** npm exited 0, nothing listens on the ports any more, and no process of its group is left. */
async function expectStoppedCleanly(start: RootStart, ports: number[]): Promise<void> {
  const [code] = await within(start.exited, 60_000, () => `npm did not exit:\n${start.output()}`);
  expect(code).toBe(0);
  for (const port of ports) expect(await accepts(port), String(port)).toBe(false);
  expect(await groupLingers(start.group)).toBe(false);
}

describe("the root npm start", () => {
  it("starts both apps on one embedded database, prints both URLs, and stops both on SIGTERM to npm alone", async () => {
    const start = await rootStart();
    try {
      const design = Number((await start.waitFor(/The design host is running at http:\/\/localhost:(\d+)/))[1]);
      const web = Number((await start.waitFor(/Shelf is running at http:\/\/localhost:(\d+)/))[1]);
      const databasePort = Number((await start.waitFor(/Database: embedded PostgreSQL on port (\d+)/))[1]);
      const key = (await start.waitFor(/Demo API key: (\S+)/))[1] as string;
      // The launcher speaks for both apps: one database line, each URL once, web's lines before the design host's.
      expect(start.output().match(/^Database: /gm)).toHaveLength(1);
      expect(start.output().match(/is running at/g)).toHaveLength(2);
      expect(start.output().indexOf("Shelf is running")).toBeLessThan(start.output().indexOf("The design host is"));
      expect(web).not.toBe(design);

      // Both answer, and both read the one database the launcher printed: the web app's demo (seeded there) and a
      // design token made there work on their hosts.
      const library = await fetch(`http://127.0.0.1:${web}/api/library`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(library.status).toBe(200);
      const pool = createDb(`postgres://postgres:postgres@127.0.0.1:${databasePort}/shelf`, { max: 1 });
      try {
        const sql = postgres(`postgres://postgres:postgres@127.0.0.1:${databasePort}/shelf`, { max: 1 });
        expect(await sql`select 1 from accounts where email = 'demo@shelf.test'`).toHaveLength(1);
        // The design app loaded the demo gallery through the replay: its run, and the screens of both apps.
        expect(await sql`select status from collect_runs where opener_name = 'demo-collector'`).toEqual([
          { status: "replayed" },
        ]);
        const apps = await sql`select distinct a.slug from gallery_screens s join gallery_apps a on a.id = s.app_id
          where s.status = 'current' order by a.slug`;
        expect(apps.map((row) => row.slug)).toEqual(["accounts", "design"]);
        await sql.end();
        const { token } = await designTokens.createDesignToken(pool.db, { name: "root", roles: ["read"] }, "shelf");
        const document = await fetch(`http://127.0.0.1:${design}/api/agent/docs/nothing-yet`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(document.status).toBe(404);
        expect((await document.json()).error).toMatch(/not_found/);
      } finally {
        await pool.close();
      }
      for (const port of [web, design]) {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
        expect(ready.status).toBe(200);
      }
      // The design host refuses the account key the web app took.
      const refused = await fetch(`http://127.0.0.1:${design}/api/agent/docs/x`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(refused.status).toBe(401);

      start.npm.kill("SIGTERM");
      // 0 only from both apps' own shutdown (drained, pools closed), then the launcher's (the database stopped).
      await expectStoppedCleanly(start, [web, design, databasePort]);
    } finally {
      await start.cleanup();
    }
  }, 240_000);

  it("stops both apps and the database on Ctrl-C (SIGINT to the whole process group), exiting 0", async () => {
    const start = await rootStart({ SHELF_DEMO: "false" });
    const { group } = start;
    try {
      const design = Number((await start.waitFor(/The design host is running at http:\/\/localhost:(\d+)/))[1]);
      const web = Number((await start.waitFor(/Shelf is running at http:\/\/localhost:(\d+)/))[1]);
      const databasePort = Number((await start.waitFor(/Database: embedded PostgreSQL on port (\d+)/))[1]);
      process.kill(-group, "SIGINT");
      await expectStoppedCleanly(start, [web, design, databasePort]);
    } finally {
      await start.cleanup();
    }
  }, 240_000);

  it("stops the other app and exits with the failure when one app cannot start", async () => {
    // The design host's port is taken: the web app starts, the design app cannot listen.
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const designPort = (taken.address() as net.AddressInfo).port;
    const start = await rootStart({ SHELF_DEMO: "false", DESIGN_PORT: String(designPort) });
    const { group } = start;
    try {
      const web = Number((await start.waitFor(/Shelf is running at http:\/\/localhost:(\d+)/))[1]);
      const databasePort = Number((await start.waitFor(/Database: embedded PostgreSQL on port (\d+)/))[1]);
      const [code] = await within(start.exited, 90_000, () => `npm did not exit:\n${start.output()}`);
      expect(code).toBe(1);
      expect(start.output()).toMatch(/EADDRINUSE/);
      expect(start.output()).toContain("The design app stopped (exit code 1): stopping the others.");
      expect(start.output()).not.toContain("The design host is running");
      for (const port of [web, databasePort]) expect(await accepts(port), String(port)).toBe(false);
      expect(await groupLingers(group)).toBe(false);
    } finally {
      taken.close();
      await start.cleanup();
    }
  }, 240_000);

  it("refuses the same port for both apps in one line, before starting anything", async () => {
    const start = await rootStart({ PORT: "3999", DESIGN_PORT: "3999" });
    try {
      const [code] = await within(start.exited, 30_000, () => `npm did not exit:\n${start.output()}`);
      expect(code).toBe(1);
      const errors = start
        .output()
        .split("\n")
        .filter((line) => line.startsWith("error: "));
      expect(errors).toEqual(["error: PORT and DESIGN_PORT are both 3999: give each app its own port."]);
      expect(start.output()).not.toMatch(/Database:/);
    } finally {
      await start.cleanup();
    }
  }, 60_000);
});
