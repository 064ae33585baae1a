import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordSecretsIn } from "@shelf/api/testing";
import { withTestDatabase } from "@shelf/api/testing/suite";
import { afterAll, beforeAll, expect } from "vitest";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * How `npm run admin` runs the CLI: Node with tsx's loader, one process (tsx's own command would start a second Node
 * to run it in, about half a second more per command).
 */
export const ADMIN_COMMAND = [process.execPath, "--import", "tsx", "apps/admin/src/main.ts"] as const;

export type CliResult = { code: number; stdout: string; stderr: string };

/**
 * The real operator CLI in a child process, on a test file's database and data folder (read when each command runs,
 * so a file can set them up in beforeAll). Keys it prints are recorded for the run's log scan.
 */
export function cliHarness(where: () => { databaseUrl: string; dataDir: string; env?: Record<string, string> }) {
  function admin(...args: string[]): Promise<CliResult> {
    const { databaseUrl, dataDir, env } = where();
    return new Promise((resolve) => {
      execFile(
        ADMIN_COMMAND[0],
        [...ADMIN_COMMAND.slice(1), ...args],
        {
          cwd: repoRoot,
          env: {
            ...process.env,
            DATABASE_URL: databaseUrl,
            SHELF_KEY_PREFIX: "shelf",
            SHELF_DATA_DIR: dataDir,
            ...env,
          },
          timeout: 60_000,
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
          recordSecretsIn(stdout);
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  /** A successful --json run: exactly one JSON object on stdout. */
  async function adminJson(...args: string[]) {
    const result = await admin(...args, "--json");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    // biome-ignore lint/suspicious/noExplicitAny: the output is asserted field by field
    return JSON.parse(result.stdout) as Record<string, any>;
  }

  async function expectFailure(args: string[], message: RegExp, code = 1) {
    const result = await admin(...args);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  }

  return { admin, adminJson, expectFailure };
}

/**
 * The usual set-up of an operator CLI suite: the file's own database (withTestDatabase) and a data folder of its own
 * (in the system's temporary folder, its name starting with `prefix`), removed after its tests, and the CLI on both.
 */
export function withAdminCli(prefix: string) {
  const testDb = withTestDatabase();
  let dataDir: string | undefined;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });
  const folder = () => {
    if (dataDir === undefined) throw new Error("the data folder is made in beforeAll: read it in a test");
    return dataDir;
  };
  return {
    testDb,
    get dataDir() {
      return folder();
    },
    ...cliHarness(() => ({ databaseUrl: testDb.url, dataDir: folder() })),
  };
}
