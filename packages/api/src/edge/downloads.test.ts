import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash, randomFillSync } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aria2cArgs, createAccountWithKey } from "../testing";

const apiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const tsx = path.resolve(apiDir, "../../node_modules/.bin/tsx");
const SIZE = 1024 ** 3;

let testDb: TestDatabase;
let workDir: string;
let key: string;
let expectedSha256: string;
let server: ChildProcess;
let url: string;

async function sha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 4 * 1024 * 1024 })) hash.update(chunk);
  return hash.digest("hex");
}

/** Peak resident memory of the server process so far, in MiB. */
async function peakRssMiB(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

/** The server runs under tsx, whose child process is the Node that serves: the one holding the listening socket. */
async function servingPid(parent: number): Promise<number> {
  const children = (await fs.readFile(`/proc/${parent}/task/${parent}/children`, "utf8")).trim().split(/\s+/);
  return Number(children.find(Boolean) ?? parent);
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  const holder = await createAccountWithKey(testDb.db);
  key = holder.key;
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-downloads-"));
  const filesDir = path.join(workDir, "files");
  await fs.mkdir(path.join(filesDir, String(holder.account.id)), { recursive: true });
  // A gigabyte of random bytes: any misplaced range changes the digest.
  const file = await fs.open(path.join(filesDir, String(holder.account.id), "big.bin"), "w");
  const hash = createHash("sha256");
  const chunk = Buffer.alloc(16 * 1024 * 1024);
  for (let written = 0; written < SIZE; written += chunk.length) {
    randomFillSync(chunk);
    hash.update(chunk);
    await file.write(chunk);
  }
  await file.close();
  expectedSha256 = hash.digest("hex");

  server = spawn(tsx, ["src/testing/file-server.ts"], {
    cwd: apiDir,
    env: { ...process.env, DATABASE_URL: testDb.url, FILES_DIR: filesDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const port = await new Promise<string>((resolve, reject) => {
    server.stdout?.on("data", (data) => {
      output += data;
      const match = /listening on (\d+)/.exec(output);
      if (match) resolve(match[1] as string);
    });
    server.stderr?.on("data", (data) => {
      output += data;
    });
    server.on("exit", () => reject(new Error(`file server exited:\n${output}`)));
  });
  url = `http://127.0.0.1:${port}/api/test/files/big.bin`;
  // Warm up: the first quarter once, so the heap has grown to its working size before anything is measured.
  const warmUp = await run("curl", [
    "-sS",
    "-o",
    "/dev/null",
    "-r",
    `0-${SIZE / 4 - 1}`,
    "-H",
    `Authorization: Bearer ${key}`,
    url,
  ]);
  expect(warmUp).toBe(0);
}, 180_000);

afterAll(async () => {
  server?.kill("SIGTERM");
  await fs.rm(workDir, { recursive: true, force: true });
  await testDb?.drop();
});

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error) =>
      resolve(error ? ((error as { code?: number }).code ?? -1) : 0),
    );
  });
}

describe("a 1 GiB file through a plain route", () => {
  it("resumes a cut curl download with -C - and ends with the right sha256, memory flat", async () => {
    const pid = await servingPid(server.pid as number);
    const before = await peakRssMiB(pid);
    const out = path.join(workDir, "curl.bin");
    const auth = `Authorization: Bearer ${key}`;
    // Cut after two seconds at 150 MB/s: a partial file to resume from.
    expect(await run("curl", ["-sS", "-o", out, "-H", auth, "--limit-rate", "150M", "-m", "2", url])).toBe(28);
    const partial = (await fs.stat(out)).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(SIZE);
    expect(await run("curl", ["-sS", "-f", "-C", "-", "-o", out, "-H", auth, url])).toBe(0);
    expect((await fs.stat(out)).size).toBe(SIZE);
    expect(await sha256(out)).toBe(expectedSha256);
    await fs.rm(out);
    expect((await peakRssMiB(pid)) - before).toBeLessThan(32);
  }, 120_000);

  it("downloads in four parallel ranges with aria2c -x4 and ends with the right sha256, memory flat", async () => {
    const pid = await servingPid(server.pid as number);
    const before = await peakRssMiB(pid);
    const exitCode = await run("aria2c", aria2cArgs(url, workDir, "aria2.bin", [`Authorization: Bearer ${key}`]));
    expect(exitCode).toBe(0);
    const out = path.join(workDir, "aria2.bin");
    expect((await fs.stat(out)).size).toBe(SIZE);
    expect(await sha256(out)).toBe(expectedSha256);
    await fs.rm(out);
    expect((await peakRssMiB(pid)) - before).toBeLessThan(32);
  }, 120_000);
});
