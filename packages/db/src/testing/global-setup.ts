import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../embedded";
import { runMigrations } from "../migrate";
import "./provided";
import { databaseUrl } from "./urls";

/**
 * One PostgreSQL server for the whole run: the one `DATABASE_URL` names (CI's system server), else a fresh
 * embedded server in a temporary folder. Migrations are applied once to a template database.
 */
export default async function setup(project: TestProject) {
  const runId = randomBytes(4).toString("hex");
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let dataDir: string | undefined;
  if (!serverUrl) {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-test-pg-"));
    const server = await startEmbeddedPostgres({ dataDir });
    serverUrl = server.url;
    stopEmbedded = server.stop;
  }
  const prefix = `shelf_t_${runId}`;
  const template = `${prefix}_template`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${template}`);
  await runMigrations(databaseUrl(serverUrl, template));
  await admin.unsafe(`alter database ${template} with allow_connections false`);

  project.provide("dbServerUrl", serverUrl);
  project.provide("dbTemplate", template);
  project.provide("dbRunPrefix", prefix);
  process.env.SHELF_TEST_DB_SERVER_URL = serverUrl;

  return async () => {
    const leftovers = await admin<
      { datname: string }[]
    >`select datname from pg_database where datname like ${`${prefix}%`}`;
    for (const { datname } of leftovers) await admin.unsafe(`drop database if exists ${datname} with (force)`);
    await admin.end({ timeout: 5 });
    await stopEmbedded?.();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  };
}
