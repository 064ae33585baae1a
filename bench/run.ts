import { type ChildProcess, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createDb } from "@shelf/db";
import { databaseUrl, runMigrations, startEmbeddedPostgres } from "@shelf/db/server";
import postgres from "postgres";
import { type BenchData, loadBenchData } from "./data";
import { currentRss, measureDownloads, peakRss, publishDownload } from "./downloads";
import { cpuMs, load, postgresCpuMs, startProcess } from "./harness";
import { measureThroughProxy, renderProxyResults } from "./proxy";
import { type LibraryRun, type LightRun, renderLibrarySeries, renderLightSeries, renderReport } from "./report";
import {
  assertSameAnswers,
  assertSameBytes,
  countStatements,
  deviceScenarios,
  type Result,
  readScenarios,
  type Scenario,
  type Servers,
} from "./scenarios";
import {
  BASE_URL,
  CLUSTER_WEB,
  CONNECTIONS,
  LIBRARY_RUNS,
  LIGHT_GROUPS,
  LIGHT_RUNS,
  NODE_FLAGS,
  OUTPUT,
  root,
  SECONDS,
  TARGET,
  WARMUP_SECONDS,
} from "./settings";

/** What every part of a run reads: the database, its data, the servers, every scenario and those chosen. */
type Run = { url: string; data: BenchData; servers: Servers; scenarios: Scenario[]; chosen: Scenario[] };

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** The app (and, with SHELF_BENCH_REDIS_URL, a second one limiting through Redis) and the baseline, started. */
async function startServers(env: Record<string, string>, children: ChildProcess[]): Promise<Servers> {
  const profile = process.env.SHELF_BENCH_CPU_PROFILE
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.SHELF_BENCH_CPU_PROFILE}`]
    : [];
  const webDir = path.join(root, "apps/web");
  const appReady = /running at http:\/\/localhost:(\d+)/;
  const app = await startProcess([...NODE_FLAGS, ...profile, "--import", "tsx", "server.ts"], webDir, env, appReady);
  children.push(app.child);
  const redisUrl = process.env.SHELF_BENCH_REDIS_URL;
  const appWithRedis = redisUrl
    ? await startProcess(
        [...NODE_FLAGS, "--import", "tsx", "server.ts"],
        webDir,
        { ...env, REDIS_URL: redisUrl, SHELF_RATE_LIMIT_NAMESPACE: `bench-${randomBytes(3).toString("hex")}` },
        appReady,
      )
    : null;
  if (appWithRedis) children.push(appWithRedis.child);
  const baseline = await startProcess(
    ["--import", "tsx", "bench/baseline-server.ts"],
    root,
    env,
    /baseline listening on (\d+)/,
  );
  children.push(baseline.child);
  return { app, appWithRedis, baseline };
}

/**
 * The table's runs: each chosen scenario (and its group's baseline) under load after its warm-up, with the CPU its
 * server and PostgreSQL spent per request; each app scenario's ratios to its group's baseline.
 */
async function measureTable({ url, servers, scenarios, chosen }: Run, cleanups: (() => Promise<unknown>)[]) {
  const { app, appWithRedis, baseline } = servers;
  // This machine's PostgreSQL runs without autovacuum (as CI servers often do): without it, statistics never change
  // after the data load, so the plans each connection cached while a table was nearly empty (device seats, usage)
  // stay in use once it holds thousands of rows, and a scenario after a writing one measures that, not the code.
  // After each run, what autovacuum would do in production: VACUUM ANALYZE, which also has the plans made again.
  const maintenance = postgres(url, { max: 1, onnotice: () => {} });
  cleanups.push(() => maintenance.end());
  const groups = new Set(chosen.map((scenario) => scenario.group));
  const results: Result[] = [];
  for (const scenario of scenarios.filter(
    (candidate) => chosen.includes(candidate) || (candidate.baseline && groups.has(candidate.group)),
  )) {
    if (WARMUP_SECONDS > 0) await load(scenario, WARMUP_SECONDS, CONNECTIONS);
    const serverPid = (scenario.port === baseline.port ? baseline : scenario.port === app.port ? app : appWithRedis)
      ?.child.pid as number;
    const cpuBefore = { server: cpuMs(serverPid), database: postgresCpuMs() };
    const run = await load(scenario, SECONDS, CONNECTIONS);
    const cpu = { server: cpuMs(serverPid) - cpuBefore.server, database: postgresCpuMs() - cpuBefore.database };
    const expectedCount =
      (run.statusCodeStats as Record<string, { count: number }> | undefined)?.[String(scenario.expect)]?.count ?? 0;
    const unexpected = run.requests.total - expectedCount;
    results.push({
      name: scenario.name,
      group: scenario.group,
      baseline: scenario.baseline ?? false,
      rps: run.requests.average,
      p50: run.latency.p50,
      p99: run.latency.p99,
      errors: run.errors + run.timeouts,
      non2xx: unexpected,
      statements: scenario.statements,
      serverCpuMs: cpu.server / run.requests.total,
      databaseCpuMs: cpu.database / run.requests.total,
    });
    const statuses = unexpected > 0 ? `, statuses ${JSON.stringify(run.statusCodeStats)}` : "";
    const perRequest = `CPU per request: server ${(cpu.server / run.requests.total).toFixed(2)} ms, PostgreSQL ${(cpu.database / run.requests.total).toFixed(2)} ms`;
    console.log(
      `  ${scenario.name}: ${Math.round(run.requests.average)} req/s, p99 ${run.latency.p99} ms, ${perRequest}${statuses}`,
    );
    await maintenance.unsafe("vacuum analyze");
  }
  for (const result of results) {
    const base = results.find((candidate) => candidate.baseline && candidate.group === result.group);
    if (!base || result.baseline) continue;
    result.baselineRatio = result.rps / base.rps;
    result.p99Ratio = result.p99 / base.p99;
  }
  return results;
}

/** The hot paths of the app (those chosen) through HAProxy, against one instance directly. */
async function throughProxy({ url, servers, chosen }: Run) {
  const hot = ["GET /api/library (50 products)", "GET /api/products/{id}/updates", "a seated device", "client-config"];
  const picks = chosen.filter(
    (scenario) =>
      !scenario.baseline && scenario.port === servers.app.port && hot.some((name) => scenario.name.includes(name)),
  );
  console.log(`Through HAProxy: starting a cluster of ${CLUSTER_WEB} web instance(s) on the benchmark's database...`);
  return measureThroughProxy({
    databaseUrl: url,
    instances: CLUSTER_WEB,
    scenarios: picks.map(({ name, path, method, headers, body, expect }) => ({
      name,
      path,
      method,
      headers,
      body,
      expect,
    })),
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    connections: CONNECTIONS,
    say: (line) => console.log(line),
  });
}

/**
 * The library's tail, run after run: the pair (baseline, then app) LIBRARY_RUNS times in a row, each with its
 * warm-up, with the app's CPU per request and its resident memory after each run.
 */
async function librarySeries({ servers, scenarios }: Run): Promise<LibraryRun[]> {
  const { app, baseline, appWithRedis } = servers;
  const pair = scenarios.filter((scenario) => scenario.group === "library" && scenario.port !== appWithRedis?.port);
  const runs: LibraryRun[] = [];
  for (let index = 0; index < LIBRARY_RUNS; index++) {
    const measured = [];
    for (const scenario of pair) {
      if (WARMUP_SECONDS > 0) await load(scenario, WARMUP_SECONDS, CONNECTIONS);
      const pid = (scenario.baseline ? baseline : app).child.pid as number;
      const before = cpuMs(pid);
      const run = await load(scenario, SECONDS, CONNECTIONS);
      measured.push({
        rps: run.requests.average,
        p99: run.latency.p99,
        cpu: (cpuMs(pid) - before) / run.requests.total,
        bad: run.errors + run.timeouts + run.non2xx,
      });
    }
    const [base, api] = measured as [(typeof measured)[0], (typeof measured)[0]];
    runs.push({
      rps: api.rps,
      p99: api.p99,
      baselineRps: base.rps,
      baselineP99: base.p99,
      serverCpuMs: api.cpu,
      baselineCpuMs: base.cpu,
      rssMb: currentRss(app.child.pid as number),
      errors: base.bad + api.bad,
    });
    console.log(
      `  library run ${index + 1}: ${Math.round(api.rps)} req/s (${(api.rps / base.rps).toFixed(2)}x), p99 ${api.p99} ms (${(api.p99 / base.p99).toFixed(2)}x)`,
    );
  }
  return runs;
}

/**
 * The light paths again, pair after pair: LIGHT_RUNS runs of each (after its warm-up), the baseline first in odd
 * runs and the app first in even ones, so that a machine getting busier or quieter weighs on both alike; the
 * median of the runs' ratios is the figure to read.
 */
async function lightSeries({ scenarios, chosen }: Run): Promise<LightRun[]> {
  const runs: LightRun[] = [];
  for (const group of LIGHT_GROUPS) {
    const pair = scenarios.filter((scenario) => scenario.group === group);
    const app = pair.find((scenario) => !scenario.baseline);
    if (!app || !chosen.includes(app)) continue;
    for (let index = 0; index < LIGHT_RUNS; index++) {
      const order = index % 2 === 0 ? pair : [...pair].reverse();
      const measured = new Map<boolean, { rps: number; p99: number; bad: number }>();
      for (const scenario of order) {
        if (WARMUP_SECONDS > 0) await load(scenario, WARMUP_SECONDS, CONNECTIONS);
        const run = await load(scenario, SECONDS, CONNECTIONS);
        measured.set(scenario.baseline ?? false, {
          rps: run.requests.average,
          p99: run.latency.p99,
          bad: run.errors + run.timeouts + run.non2xx,
        });
      }
      const base = measured.get(true) as { rps: number; p99: number; bad: number };
      const api = measured.get(false) as { rps: number; p99: number; bad: number };
      runs.push({
        name: app.name,
        baselineFirst: index % 2 === 0,
        rps: api.rps,
        p99: api.p99,
        baselineRps: base.rps,
        baselineP99: base.p99,
        errors: base.bad + api.bad,
      });
      console.log(
        `  ${app.name}, run ${index + 1}: ${Math.round(api.rps)} req/s (${(api.rps / base.rps).toFixed(2)}x), p99 ${api.p99} ms (${(api.p99 / base.p99).toFixed(2)}x)`,
      );
    }
  }
  return runs;
}

/** The library at 10 and 1,000 entitled products, on 4 connections: how its cost grows with the account. */
async function libraryGrowth({ servers, data }: Run) {
  const growth = [];
  for (const [size, key] of [
    [10, data.keys.p10],
    [1000, data.keys.p1000],
  ] as const) {
    const run = await load(
      { port: servers.app.port, path: "/api/library", headers: auth(key) },
      Math.max(3, SECONDS / 2),
      4,
    );
    growth.push({
      size,
      p50: run.latency.p50,
      p99: run.latency.p99,
      rps: run.requests.average,
      errors: run.errors + run.non2xx,
    });
  }
  return growth;
}

/** A fresh database on DATABASE_URL's server, else on a fresh embedded PostgreSQL; `drop` removes it all. */
async function benchDatabase() {
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let dataDir: string | undefined;
  if (!serverUrl) {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-bench-pg-"));
    const embedded = await startEmbeddedPostgres({ dataDir });
    serverUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const database = `shelf_bench_${randomBytes(3).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const drop = async () => {
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
    await stopEmbedded?.();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  };
  return { url: databaseUrl(serverUrl, database), database, drop };
}

async function main() {
  if (TARGET !== "" && TARGET !== "cluster") {
    throw new Error(`SHELF_BENCH_TARGET takes "cluster" (or nothing), not "${TARGET}".`);
  }
  if (!Number.isInteger(CLUSTER_WEB) || CLUSTER_WEB < 1 || CLUSTER_WEB > 16) {
    throw new Error("SHELF_BENCH_CLUSTER_WEB takes a whole number from 1 to 16.");
  }
  const { url, database, drop } = await benchDatabase();
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  const serverLog = path.join(os.tmpdir(), `shelf-bench-${database}.log`);
  try {
    await runMigrations(url);
    const handle = createDb(url, { max: 4 });
    console.log("Loading the data set...");
    const data = await loadBenchData(handle);
    await handle.close();
    console.log(
      `  ${Object.entries(data.counts)
        .map(([name, n]) => `${n} ${name}`)
        .join(", ")}`,
    );
    if (!existsSync(path.join(root, "apps/web/.next/BUILD_ID")) || process.env.SHELF_BENCH_BUILD === "1") {
      console.log("Building the web app...");
      execFileSync("npm", ["run", "build", "-w", "@shelf/web"], { cwd: root, stdio: "inherit" });
    }
    // The servers' data folder (artifacts, signing keys, link secret): the download scenario's file goes there.
    const serverData = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-bench-data-"));
    cleanups.push(() => fs.rm(serverData, { recursive: true, force: true }));
    const download = await publishDownload(url, serverData, data);
    const env = {
      DATABASE_URL: url,
      SHELF_DATA_DIR: serverData,
      SHELF_BASE_URL: BASE_URL,
      // The servers log every request, as in production; to a file, as a log collector would take it.
      SHELF_LOG_FILE: serverLog,
      SHELF_RATE_LIMIT_PER_MINUTE: "1000000000",
      PORT: "0",
      HOST: "127.0.0.1",
    };
    const servers = await startServers(env, children);
    const { app } = servers;

    await assertSameBytes(app.port, servers.baseline.port, data);
    const statements = await countStatements(url, data, serverData);
    /**
     * A scenario of the app, or of a baseline (`baseline: true`) for the app's scenarios of the same `group`: each
     * ratio is to the baseline of its group, measured in the same run.
     */
    const { reads, unauthenticated } = await readScenarios(data, servers, statements);
    const scenarios = [...reads, ...deviceScenarios(data, servers, statements), unauthenticated];
    await assertSameAnswers(scenarios);

    const only = process.env.SHELF_BENCH_ONLY;
    // Scenarios whose name holds one of SHELF_BENCH_ONLY's `|`-separated parts (with their groups' baselines).
    const parts = only?.split("|") ?? [];
    const picked = (name: string) => parts.some((part) => name.includes(part));
    const chosen = scenarios.filter((scenario) => !only || picked(scenario.name));
    const run: Run = { url, data, servers, scenarios, chosen };
    const results = await measureTable(run, cleanups);
    const library = only && !picked("GET /api/library (50 products)") ? [] : await librarySeries(run);
    const light = await lightSeries(run);
    const proxy = TARGET === "cluster" ? await throughProxy(run) : [];
    if (only) {
      console.log(library.length ? renderLibrarySeries(library).join("\n") : "");
      console.log(renderLightSeries(light).join("\n"));
      console.log(renderProxyResults(proxy, CLUSTER_WEB).join("\n"));
      // A look at some scenarios (profiling, comparing): the rest of the report needs the whole run.
      console.log("SHELF_BENCH_ONLY is set: the library growth and download parts and the report file are skipped.");
      return;
    }
    const growth = await libraryGrowth(run);
    const downloads = await measureDownloads(app.port, app.child.pid as number, download, data, env);
    const rss = peakRss(app.child.pid as number);
    const report = renderReport(results, growth, rss, data, statements, downloads, library, light, proxy);
    await fs.writeFile(OUTPUT, report);
    console.log(`\n${report}`);
    const failed = [
      ...results,
      ...growth.map((g) => ({ name: `library at ${g.size}`, errors: g.errors, non2xx: 0 })),
      ...library.map((run, index) => ({ name: `library run ${index + 1}`, errors: run.errors, non2xx: 0 })),
      ...light.map((run) => ({ name: `${run.name} (again)`, errors: run.errors, non2xx: 0 })),
      ...proxy.map((result) => ({
        name: `${result.name} (directly, through HAProxy)`,
        errors: result.direct.bad + result.proxied.bad,
        non2xx: 0,
      })),
    ].filter((result) => result.errors > 0 || result.non2xx > 0);
    if (failed.length > 0) {
      console.error(`Scenarios with errors or unexpected statuses: ${failed.map((result) => result.name).join(", ")}`);
      process.exitCode = 1;
    }
  } finally {
    for (const child of children) if (child.pid) process.kill(-child.pid, "SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const cleanup of cleanups) await cleanup();
    if (process.env.SHELF_BENCH_KEEP_LOG === "1") console.log(`The servers' log: ${serverLog}`);
    else await fs.rm(serverLog, { force: true });
    await drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
