import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordSecretsIn } from "@shelf/api/testing";
import { expect } from "vitest";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const tsx = path.join(repoRoot, "node_modules/.bin/tsx");

/** A command run from the repository, its output's keys recorded for the run's log scan. */
export function run(command: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      command,
      args,
      { cwd: repoRoot, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        recordSecretsIn(stdout);
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * The operator CLI, as `npm run admin` runs it, on a test's database and data folder (read at each call): one
 * successful `--json` run, its object returned.
 */
export function adminCli(where: () => { databaseUrl: string; dataDir: string }) {
  return async (...args: string[]) => {
    const { databaseUrl, dataDir } = where();
    const result = await run(tsx, ["apps/admin/src/main.ts", ...args, "--json"], {
      DATABASE_URL: databaseUrl,
      SHELF_DATA_DIR: dataDir,
      SHELF_KEY_PREFIX: "shelf",
    });
    expect(result.stderr, args.join(" ")).toBe("");
    expect(result.code, args.join(" ")).toBe(0);
    // biome-ignore lint/suspicious/noExplicitAny: each output is asserted where it is used
    return JSON.parse(result.stdout) as Record<string, any>;
  };
}
