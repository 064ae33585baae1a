import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "./embedded";
import { runMigrations } from "./migrate";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

describe("embedded PostgreSQL launcher", () => {
  it("starts once per data folder: concurrent launchers and other processes join the running server", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-embedded-"));
    dirs.push(dataDir);
    const [a, b] = await Promise.all([startEmbeddedPostgres({ dataDir }), startEmbeddedPostgres({ dataDir })]);
    try {
      expect([a.owned, b.owned].sort()).toEqual([false, true]);
      expect(a.port).toBe(b.port);

      const script = `import("./packages/db/src/embedded.ts").then(async ({ startEmbeddedPostgres }) => {
  const s = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} });
  console.log(JSON.stringify({ port: s.port, owned: s.owned }));
});`;
      const { stdout } = await promisify(execFile)(path.join(repoRoot, "node_modules/.bin/tsx"), ["--eval", script], {
        cwd: repoRoot,
      });
      expect(JSON.parse(stdout.trim().split("\n").pop() as string)).toEqual({ port: a.port, owned: false });

      await runMigrations(a.url);
      await Promise.all([runMigrations(a.url), runMigrations(b.url)]);
      const client = postgres(a.url, { max: 1, onnotice: () => {} });
      await client`insert into accounts (email) values ('kept@example.test')`;
      await client.end();
    } finally {
      await (a.owned ? a : b).stop();
    }

    const restarted = await startEmbeddedPostgres({ dataDir });
    try {
      expect(restarted.owned).toBe(true);
      const client = postgres(restarted.url, { max: 1, onnotice: () => {} });
      const rows = await client`select email from accounts`;
      await client.end();
      expect(rows.map((row) => row.email)).toEqual(["kept@example.test"]);
    } finally {
      await restarted.stop();
    }
  }, 120_000);

  it("leaves the process exit code alone", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-embedded-"));
    dirs.push(dataDir);
    const script = `import("./packages/db/src/embedded.ts").then(async ({ startEmbeddedPostgres }) => {
  const s = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} });
  await s.stop();
  process.exitCode = 3;
});`;
    const exitCode = await new Promise<number | null>((resolve) => {
      execFile(path.join(repoRoot, "node_modules/.bin/tsx"), ["--eval", script], { cwd: repoRoot }, (error) =>
        resolve(error ? ((error as { code?: number }).code ?? null) : 0),
      );
    });
    expect(exitCode).toBe(3);
  }, 60_000);
});
