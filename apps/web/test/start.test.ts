import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildState } from "../src/build-state";

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
