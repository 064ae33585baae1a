import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  type AccountServices,
  createAccountApiEdge,
  createDelivery,
  createGuessLimits,
  createLogger,
  createRateLimiter,
  type Delivery,
  loadDeliveryFiles,
  readApiEnv,
} from "@shelf/api";
import { createDb, type DbHandle } from "@shelf/db";
import { databaseUrl, runMigrations } from "@shelf/db/server";
import postgres from "postgres";
import { loadBenchData } from "./data";

export type BenchEdge = {
  /** The benchmark's database (a fresh one on DATABASE_URL's server, with the benchmark's data). */
  url: string;
  handle: DbHandle;
  data: Awaited<ReturnType<typeof loadBenchData>>;
  /** The account API's edge as the web app makes it, its log in a file, a rate limit that never refuses. */
  edge: ReturnType<typeof createAccountApiEdge>;
  log: ReturnType<typeof createLogger>;
  /** Drops the database and the data folder. */
  close: () => Promise<void>;
};

/** The account API's edge alone, in this process, on a fresh database of the benchmark's data: for the edge tools. */
export async function startBenchEdge(name: string): Promise<BenchEdge> {
  const serverUrl = process.env.DATABASE_URL as string;
  const database = `shelf_${name}_${randomBytes(3).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const url = databaseUrl(serverUrl, database);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `shelf-${name}-`));
  const handle = createDb(url, { max: 10 });
  const close = async () => {
    await handle.close();
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    await runMigrations(url);
    const data = await loadBenchData(handle);
    const env = readApiEnv({} as NodeJS.ProcessEnv);
    const files = await loadDeliveryFiles(env, dataDir);
    const delivery = await createDelivery({ env, dataDir, baseUrl: "http://bench.test", files });
    const log = createLogger({ SHELF_LOG_LEVEL: "info", SHELF_LOG_FILE: path.join(dataDir, "log") });
    const edge = createAccountApiEdge({
      db: handle.db,
      baseUrl: "http://bench.test",
      ...benchServices(delivery, "http://bench.test"),
      rateLimiter: createRateLimiter({ points: 1e9 }),
      log,
    });
    return { url, handle, data, edge, log, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The account host's services of a benchmark's in-process edge, as the web app makes them: guessing limits in memory,
 * the authorization server at the edge's base URL with a secret of the run's own.
 */
export function benchServices(delivery: Delivery, baseUrl: string): Omit<AccountServices, "mcp"> {
  return {
    delivery,
    guessLimits: createGuessLimits({ namespace: `bench-${randomBytes(4).toString("hex")}` }),
    oauth: { issuer: baseUrl, resource: `${baseUrl}/api/mcp`, brand: "shelf", secret: randomBytes(32).toString("hex") },
  };
}
