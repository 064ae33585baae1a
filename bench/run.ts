import { type ChildProcess, execFileSync } from "node:child_process";
import { randomBytes, randomFillSync } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createAccountApiEdge,
  createDelivery,
  createLogger,
  createRateLimiter,
  loadDeliveryFiles,
  publishing,
  readApiEnv,
} from "@shelf/api";
import { fromFetch } from "@shelf/api/edge";
import { APP_NODE_FLAGS } from "@shelf/api/host";
import { createDb } from "@shelf/db";
import { databaseUrl, runMigrations, startEmbeddedPostgres } from "@shelf/db/server";
import postgres from "postgres";
import { loadBenchData } from "./data";
import { cpuMs, type LoadTarget, load, postgresCpuMs, startProcess } from "./harness";
import { measureThroughProxy, type ProxyResult, renderProxyResults } from "./proxy";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SECONDS = Number(process.env.SHELF_BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.SHELF_BENCH_CONNECTIONS ?? 50);
const WARMUP_SECONDS = Number(process.env.SHELF_BENCH_WARMUP_SECONDS ?? 2);
/** Links in answers (download URLs) are built from this, in the API and the baseline alike. */
const BASE_URL = "http://bench.test";
/** Where the report goes; CI's smoke run writes elsewhere so the committed figures stay. */
const OUTPUT = path.resolve(root, process.env.SHELF_BENCH_OUTPUT ?? "bench/results/latest.md");
/** How many times in a row the library pair (baseline, then app) runs for its tail (5; 0 skips the series). */
const LIBRARY_RUNS = Number(process.env.SHELF_BENCH_LIBRARY_RUNS ?? 5);
/** How many times each light path's pair runs again after the table's run, in alternating order (see lightSeries). */
const LIGHT_RUNS = Number(process.env.SHELF_BENCH_LIGHT_RUNS ?? 5);
/** The light hot paths' groups: a request costs little, so a run's ratio moves with the machine more than most. */
const LIGHT_GROUPS = ["license-seated", "client-config"];
/** `cluster`: also the hot paths through HAProxy against one instance directly (bench/proxy.ts). */
const TARGET = process.env.SHELF_BENCH_TARGET ?? "";
const CLUSTER_WEB = Number(process.env.SHELF_BENCH_CLUSTER_WEB ?? 1);
/**
 * The app processes' Node flags: those `npm start` gives them (`APP_NODE_FLAGS`), unless SHELF_BENCH_NODE_FLAGS
 * names others (space-separated; empty for Node's defaults) to compare.
 */
const NODE_FLAGS =
  process.env.SHELF_BENCH_NODE_FLAGS === undefined
    ? [...APP_NODE_FLAGS]
    : process.env.SHELF_BENCH_NODE_FLAGS.split(" ").filter(Boolean);

type Result = {
  name: string;
  group: string | undefined;
  baseline: boolean;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  statements: number | null;
  /** CPU time per request of the server that answered, and of PostgreSQL (all its processes), in ms. */
  serverCpuMs: number;
  databaseCpuMs: number;
  baselineRatio?: number;
  p99Ratio?: number;
};

/** A request shape under load (`nextBody`: a new body for every request, autocannon's setupRequest), named. */
type Scenario = LoadTarget & {
  name: string;
  /** Scenarios of one group are compared with the group's baseline scenario. */
  group?: string;
  baseline?: boolean;
  expect: number;
  statements: number | null;
};

/** A license check's body, as the scenarios and the statement count send it. */
function licenseJson(productId: number, device: string): string {
  return JSON.stringify({ product_id: productId, device_id: device, app_version: "1.1.0" });
}

/** Each scenario twice: against the independent baseline (listed first), then against the app. */
function pairedScenarios(
  baselinePort: number,
  appPort: number,
  list: (Omit<Scenario, "port" | "baseline"> & {
    /** What the baseline is sent instead (e.g. seats taken on a product of its own). */
    forBaseline?: Pick<Scenario, "body" | "nextBody">;
  })[],
): Scenario[] {
  return list.flatMap(({ forBaseline, ...scenario }) => [
    {
      ...scenario,
      ...forBaseline,
      name: `baseline: ${scenario.name}`,
      baseline: true,
      port: baselinePort,
      statements: null,
    },
    { ...scenario, port: appPort },
  ]);
}

/** Answer fields that differ between any two requests (times, signatures, new rows and the seats they take). */
const VOLATILE = new Set([
  "checked_at",
  "recheck_after",
  "certificate",
  "certificate_expires_at",
  "signed_at",
  "signature",
  "kid",
  "activated_at",
  "last_seen_at",
  "id",
  "device_id",
  "devices_used",
]);

function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, VOLATILE.has(name) ? typeof item : masked(item)]),
    );
  }
  return value;
}

/**
 * The baselines of the licensing scenarios must answer what the app answers (the same fields, in the same order, with
 * the same values but for times and signatures), or their ratios mean nothing: checked before anything is measured,
 * with the app's request sent to both.
 */
async function assertSameAnswers(scenarios: Scenario[]) {
  for (const base of scenarios.filter((scenario) => scenario.baseline && scenario.group !== "library")) {
    const app = scenarios.find((scenario) => !scenario.baseline && scenario.group === base.group) as Scenario;
    const answers = await Promise.all(
      [base, app].map(async (scenario) => {
        const response = await fetch(`http://127.0.0.1:${scenario.port}${scenario.path}`, {
          method: scenario.method ?? "GET",
          headers: scenario.headers,
          body: app.nextBody?.() ?? app.body,
        });
        return { status: response.status, body: JSON.stringify(masked(await response.json())) };
      }),
    );
    if (answers[0]?.status !== answers[1]?.status || answers[0]?.body !== answers[1]?.body) {
      throw new Error(
        `The baseline of ${app.name} answers differently:\n  API:      ${JSON.stringify(answers[1])}\n  baseline: ${JSON.stringify(answers[0])}`,
      );
    }
    console.log(`  ${app.name}: the baseline answers the same fields and values`);
  }
}

async function main() {
  if (TARGET !== "" && TARGET !== "cluster") {
    throw new Error(`SHELF_BENCH_TARGET takes "cluster" (or nothing), not "${TARGET}".`);
  }
  if (!Number.isInteger(CLUSTER_WEB) || CLUSTER_WEB < 1 || CLUSTER_WEB > 16) {
    throw new Error("SHELF_BENCH_CLUSTER_WEB takes a whole number from 1 to 16.");
  }
  // The database: DATABASE_URL's server, else a fresh embedded PostgreSQL.
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
  const url = databaseUrl(serverUrl, database);
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
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
      SHELF_LOG_FILE: path.join(os.tmpdir(), `shelf-bench-${database}.log`),
      SHELF_RATE_LIMIT_PER_MINUTE: "1000000000",
      PORT: "0",
      HOST: "127.0.0.1",
    };
    const profile = process.env.SHELF_BENCH_CPU_PROFILE
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.SHELF_BENCH_CPU_PROFILE}`]
      : [];
    const app = await startProcess(
      [...NODE_FLAGS, ...profile, "--import", "tsx", "server.ts"],
      path.join(root, "apps/web"),
      env,
      /running at http:\/\/localhost:(\d+)/,
    );
    children.push(app.child);
    const redisUrl = process.env.SHELF_BENCH_REDIS_URL;
    const appWithRedis = redisUrl
      ? await startProcess(
          [...NODE_FLAGS, "--import", "tsx", "server.ts"],
          path.join(root, "apps/web"),
          {
            ...env,
            REDIS_URL: redisUrl,
            SHELF_RATE_LIMIT_NAMESPACE: `bench-${randomBytes(3).toString("hex")}`,
          },
          /running at http:\/\/localhost:(\d+)/,
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

    await assertSameBytes(app.port, baseline.port, data);
    const statements = await countStatements(url, data, serverData);
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });
    const licenseBody = (device: string, productId = data.updateProductId) => licenseJson(productId, device);
    const newDevices = (productId: number) => {
      let device = 0;
      return () => licenseBody(`bench-new-${process.hrtime.bigint()}-${device++}`, productId);
    };
    const usageBody = (days: number) =>
      JSON.stringify({
        consent: true,
        days: Array.from({ length: days }, (_, index) => ({
          product_id: data.updateProductId,
          usage_date: new Date(Date.now() - index * 86_400_000).toISOString().slice(0, 10),
          launches: 3 + index,
          commands: { sync: index },
        })),
      });
    const json = { "content-type": "application/json" };
    /**
     * A scenario of the app, or of a baseline (`baseline: true`) for the app's scenarios of the same `group`: each
     * ratio is to the baseline of its group, measured in the same run.
     */
    const scenarios: Scenario[] = [
      {
        name: "baseline: independent node:http + postgres.js, same bytes (library, 50 products)",
        group: "library",
        baseline: true,
        port: baseline.port,
        path: "/api/library",
        headers: auth(data.keys.p50),
        expect: 200,
        statements: 2,
      },
      {
        name: "GET /api/library (50 products)",
        group: "library",
        port: app.port,
        path: "/api/library",
        headers: auth(data.keys.p50),
        expect: 200,
        statements: statements.library,
      },
      ...(appWithRedis
        ? [
            {
              name: "GET /api/library (50 products), rate limit in Redis",
              group: "library",
              port: appWithRedis.port,
              path: "/api/library",
              headers: auth(data.keys.p50),
              expect: 200,
              statements: statements.library,
            },
          ]
        : []),
      {
        name: `GET /api/products/{id}/updates`,
        port: app.port,
        path: `/api/products/${data.updateProductId}/updates?version=1.0.0`,
        headers: auth(data.keys.p50),
        expect: 200,
        statements: statements.updates,
      },
      {
        name: "GET /api/products/{id}/install",
        port: app.port,
        path: `/api/products/${data.updateProductId}/install`,
        headers: auth(data.keys.p50),
        expect: 200,
        statements: statements.install,
      },
      {
        name: "GET /distribution/v1/products/{id}/appcast.xml (buyer's key, 2 releases)",
        port: app.port,
        path: `/distribution/v1/products/${data.updateProductId}/appcast.xml`,
        headers: auth(data.keys.p50),
        expect: 200,
        statements: statements.appcast,
      },
      {
        name: "GET /distribution/v1/products/{id}/appcast.xml, If-None-Match (304)",
        port: app.port,
        path: `/distribution/v1/products/${data.updateProductId}/appcast.xml`,
        headers: { ...auth(data.keys.p50), "if-none-match": await appcastEtag(app.port, data) },
        expect: 304,
        statements: statements.appcast,
      },
      ...pairedScenarios(baseline.port, app.port, [
        {
          name: "POST /api/license/check, a seated device",
          group: "license-seated",
          path: "/api/license/check",
          method: "POST",
          headers: { ...auth(data.deviceKey), ...json },
          body: licenseBody("bench-seated-device"),
          expect: 200,
          statements: statements.licenseSeated,
        },
        {
          name: "POST /api/license/check, a new device each time (takes a seat)",
          group: "license-new",
          path: "/api/license/check",
          method: "POST",
          headers: { ...auth(data.deviceKey), ...json },
          // Every request names a device never seen before, on a product of its own (see `seatProductIds`): each
          // server's seats pile up on its own product, so neither counts the seats the other took.
          body: licenseBody("bench-new-first", data.seatProductIds.app),
          nextBody: newDevices(data.seatProductIds.app),
          forBaseline: {
            body: licenseBody("bench-new-first", data.seatProductIds.baseline),
            nextBody: newDevices(data.seatProductIds.baseline),
          },
          expect: 200,
          statements: statements.licenseNew,
        },
        {
          name: "POST /api/device/usage, 30 days",
          group: "usage-30",
          path: "/api/device/usage",
          method: "POST",
          headers: { ...auth(data.deviceKey), ...json },
          body: usageBody(30),
          expect: 200,
          statements: statements.usage30,
        },
        {
          name: "POST /api/device/usage, 200 days",
          group: "usage-200",
          path: "/api/device/usage",
          method: "POST",
          headers: { ...auth(data.deviceKey), ...json },
          body: usageBody(200),
          expect: 200,
          statements: statements.usage200,
        },
        {
          name: "GET /api/client-config (signed per request)",
          group: "client-config",
          path: "/api/client-config",
          headers: auth(data.deviceKey),
          expect: 200,
          statements: statements.clientConfig,
        },
      ]),
      {
        name: "GET /api/library without a key (401)",
        port: app.port,
        path: "/api/library",
        expect: 401,
        statements: statements.unauthenticated,
      },
    ];
    await assertSameAnswers(scenarios);

    const only = process.env.SHELF_BENCH_ONLY;
    // Scenarios whose name holds one of SHELF_BENCH_ONLY's `|`-separated parts (with their groups' baselines).
    const parts = only?.split("|") ?? [];
    const picked = (name: string) => parts.some((part) => name.includes(part));
    // This machine's PostgreSQL runs without autovacuum (as CI servers often do): without it, statistics never change
    // after the data load, so the plans each connection cached while a table was nearly empty (device seats, usage)
    // stay in use once it holds thousands of rows, and a scenario after a writing one measures that, not the code.
    // After each run, what autovacuum would do in production: VACUUM ANALYZE, which also has the plans made again.
    const maintenance = postgres(url, { max: 1, onnotice: () => {} });
    cleanups.push(() => maintenance.end());
    const settle = () => maintenance.unsafe("vacuum analyze");
    const chosen = scenarios.filter((scenario) => !only || picked(scenario.name));
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
      await settle();
    }
    for (const result of results) {
      const base = results.find((candidate) => candidate.baseline && candidate.group === result.group);
      if (!base || result.baseline) continue;
      result.baselineRatio = result.rps / base.rps;
      result.p99Ratio = result.p99 / base.p99;
    }

    const library = only && !picked("GET /api/library (50 products)") ? [] : await librarySeries();
    const light = await lightSeries();
    const proxy = TARGET === "cluster" ? await throughProxy() : [];
    if (only) {
      console.log(library.length ? renderLibrarySeries(library).join("\n") : "");
      console.log(renderLightSeries(light).join("\n"));
      console.log(renderProxyResults(proxy, CLUSTER_WEB).join("\n"));
      // A look at some scenarios (profiling, comparing): the rest of the report needs the whole run.
      console.log("SHELF_BENCH_ONLY is set: the library growth and download parts and the report file are skipped.");
      return;
    }
    /** The hot paths of the app (those chosen) through HAProxy, against one instance directly. */
    async function throughProxy() {
      const hot = [
        "GET /api/library (50 products)",
        "GET /api/products/{id}/updates",
        "a seated device",
        "client-config",
      ];
      const picks = chosen.filter(
        (scenario) =>
          !scenario.baseline && scenario.port === app.port && hot.some((name) => scenario.name.includes(name)),
      );
      console.log(
        `Through HAProxy: starting a cluster of ${CLUSTER_WEB} web instance(s) on the benchmark's database...`,
      );
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
    async function librarySeries(): Promise<LibraryRun[]> {
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
    async function lightSeries(): Promise<LightRun[]> {
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

    const growth = [];
    for (const [size, key] of [
      [10, data.keys.p10],
      [1000, data.keys.p1000],
    ] as const) {
      const run = await load({ port: app.port, path: "/api/library", headers: auth(key) }, Math.max(3, SECONDS / 2), 4);
      growth.push({
        size,
        p50: run.latency.p50,
        p99: run.latency.p99,
        rps: run.requests.average,
        errors: run.errors + run.non2xx,
      });
    }
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
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    const serverLog = path.join(os.tmpdir(), `shelf-bench-${database}.log`);
    if (process.env.SHELF_BENCH_KEEP_LOG === "1") console.log(`The servers' log: ${serverLog}`);
    else await fs.rm(serverLog, { force: true });
    await admin.end();
    await stopEmbedded?.();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The baseline must answer exactly what the API answers, byte for byte, or its ratio means nothing: checked for
 * each library size before anything is measured.
 */
async function assertSameBytes(appPort: number, baselinePort: number, data: Awaited<ReturnType<typeof loadBenchData>>) {
  for (const [size, key] of Object.entries(data.keys)) {
    const [api, bare] = await Promise.all(
      [appPort, baselinePort].map(async (port) => {
        const response = await fetch(`http://127.0.0.1:${port}/api/library`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return Buffer.from(await response.arrayBuffer());
      }),
    );
    if (!api || !bare || !api.equals(bare)) {
      const at = [...(api ?? [])].findIndex((byte, index) => byte !== bare?.[index]);
      throw new Error(
        `The baseline's library (${size}) differs from the API's at byte ${at}:\n` +
          `  API:      ${api?.subarray(Math.max(0, at - 80), at + 80).toString()}\n` +
          `  baseline: ${bare?.subarray(Math.max(0, at - 80), at + 80).toString()}`,
      );
    }
    console.log(`  library (${size}): ${api.length} bytes, identical in the API and the baseline`);
  }
}

/** SQL statements one request costs, counted in-process through the same handler and a counting driver. */
async function countStatements(url: string, data: Awaited<ReturnType<typeof loadBenchData>>, dataDir: string) {
  let count = 0;
  const env = readApiEnv({} as NodeJS.ProcessEnv);
  const files = await loadDeliveryFiles(env, dataDir);
  const delivery = await createDelivery({ env, dataDir, baseUrl: BASE_URL, files });
  const handle = createDb(url, { max: 2, onQuery: () => count++ });
  const edge = createAccountApiEdge({
    db: handle.db,
    baseUrl: BASE_URL,
    delivery,
    rateLimiter: createRateLimiter({ points: 1e9 }),
    log: createLogger({ SHELF_LOG_LEVEL: "silent", SHELF_LOG_FILE: undefined }),
  });
  const handler = (request: Request) => edge.handle(fromFetch(request));
  const measure = async (pathname: string, key?: string, body?: (run: number) => string) => {
    const send = (run: number) =>
      handler(
        new Request(`http://bench${pathname}`, {
          method: body ? "POST" : "GET",
          headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
          body: body?.(run),
        }),
      );
    // Twice: the second request shows the steady state (the first may record key use).
    await send(0);
    count = 0;
    await send(1);
    return count;
  };
  const days = (n: number) => () =>
    JSON.stringify({
      consent: true,
      days: Array.from({ length: n }, (_, index) => ({
        product_id: data.updateProductId,
        usage_date: new Date(Date.now() - index * 86_400_000).toISOString().slice(0, 10),
        launches: index,
      })),
    });
  const license =
    (device: (run: number) => string, productId = data.updateProductId) =>
    (run: number) =>
      licenseJson(productId, device(run));
  const result = {
    library: await measure("/api/library", data.keys.p50),
    library10: await measure("/api/library", data.keys.p10),
    library1000: await measure("/api/library", data.keys.p1000),
    updates: await measure(`/api/products/${data.updateProductId}/updates?version=1.0.0`, data.keys.p50),
    install: await measure(`/api/products/${data.updateProductId}/install`, data.keys.p50),
    appcast: await measure(`/distribution/v1/products/${data.updateProductId}/appcast.xml`, data.keys.p50),
    unauthenticated: await measure("/api/library"),
    licenseSeated: await measure(
      "/api/license/check",
      data.deviceKey,
      license(() => "count-seated"),
    ),
    licenseNew: await measure(
      "/api/license/check",
      data.deviceKey,
      license((run) => `count-new-${run}`, data.seatProductIds.app),
    ),
    usage30: await measure("/api/device/usage", data.deviceKey, days(30)),
    usage200: await measure("/api/device/usage", data.deviceKey, days(200)),
    clientConfig: await measure("/api/client-config", data.deviceKey),
  };
  await handle.close();
  return result;
}

const DOWNLOAD_MB = Number(process.env.SHELF_BENCH_DOWNLOAD_MB ?? 512);
const DOWNLOAD_RUNS = 5;

type DownloadResult = {
  sizeMb: number;
  runs: number;
  app: { runs: number[]; median: number };
  baseline: { runs: number[]; median: number };
  rssBefore: number;
  rssAfter: number;
};

/** A release with a real file of DOWNLOAD_MB random bytes, published as the operator CLI publishes one. */
async function publishDownload(url: string, dataDir: string, data: Awaited<ReturnType<typeof loadBenchData>>) {
  const file = path.join(dataDir, `download-${DOWNLOAD_MB}mb.bin`);
  const out = await fs.open(file, "w");
  const chunk = Buffer.alloc(8 * 1024 * 1024);
  for (let written = 0; written < DOWNLOAD_MB * 1024 * 1024; written += chunk.length) {
    randomFillSync(chunk);
    await out.write(chunk, 0, Math.min(chunk.length, DOWNLOAD_MB * 1024 * 1024 - written));
  }
  await out.close();
  const handle = createDb(url, { max: 2 });
  const files = await loadDeliveryFiles(readApiEnv({} as NodeJS.ProcessEnv), dataDir);
  const release = await publishing.publishRelease(
    handle.db,
    files,
    { productId: data.downloadProductId, version: "9.0.0", filename: "download.bin" },
    createReadStream(file),
  );
  await handle.close();
  return { file, release };
}

/** MB/s of one download with curl, an independent client, to /dev/null. */
function curlSpeed(url: string, headers: string[] = []): number {
  const output = execFileSync("curl", ["-sS", "-f", "-o", "/dev/null", "-w", "%{speed_download}", ...headers, url]);
  return Number(output.toString()) / 1e6;
}

/** The signed download route against a bare server sending the same file, runs interleaved, and the app's memory. */
async function measureDownloads(
  appPort: number,
  appPid: number,
  download: Awaited<ReturnType<typeof publishDownload>>,
  data: Awaited<ReturnType<typeof loadBenchData>>,
  env: Record<string, string>,
): Promise<DownloadResult> {
  const bare = await startProcess(
    ["--import", "tsx", "bench/baseline-file-server.ts"],
    root,
    { ...env, SHELF_BENCH_FILE: download.file },
    /file baseline listening on (\d+)/,
  );
  try {
    const plan = await fetch(`http://127.0.0.1:${appPort}/api/products/${data.downloadProductId}/install`, {
      headers: { authorization: `Bearer ${data.keys.p50}` },
    });
    const signed = (await plan.json()).data.download_url.replace(BASE_URL, `http://127.0.0.1:${appPort}`);
    const app: number[] = [];
    const baseline: number[] = [];
    const rssBefore = peakRss(appPid);
    for (let run = 0; run < DOWNLOAD_RUNS; run++) {
      baseline.push(curlSpeed(`http://127.0.0.1:${bare.port}/file`));
      app.push(curlSpeed(signed));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    return {
      sizeMb: DOWNLOAD_MB,
      runs: DOWNLOAD_RUNS,
      app: { runs: app, median: median(app) },
      baseline: { runs: baseline, median: median(baseline) },
      rssBefore,
      rssAfter: peakRss(appPid),
    };
  } finally {
    if (bare.child.pid) process.kill(-bare.child.pid, "SIGTERM");
  }
}

/** The ETag of the buyer's appcast, for the 304 scenario. */
async function appcastEtag(port: number, data: Awaited<ReturnType<typeof loadBenchData>>): Promise<string> {
  const response = await fetch(
    `http://127.0.0.1:${port}/distribution/v1/products/${data.updateProductId}/appcast.xml`,
    {
      headers: { authorization: `Bearer ${data.keys.p50}` },
    },
  );
  await response.arrayBuffer();
  return response.headers.get("etag") as string;
}

type LibraryRun = {
  rps: number;
  p99: number;
  baselineRps: number;
  baselineP99: number;
  serverCpuMs: number;
  baselineCpuMs: number;
  rssMb: number;
  errors: number;
};

function renderLibrarySeries(runs: LibraryRun[]): string[] {
  if (runs.length === 0) return [];
  const worst = Math.max(...runs.map((run) => run.p99 / run.baselineP99));
  return [
    `Library (50 products), ${runs.length} runs in a row (baseline, then app, each after its warm-up; app started with \`${NODE_FLAGS.join(" ") || "Node's defaults"}\`):`,
    "",
    "| run | req/s | baseline req/s | req/s vs baseline | p99 ms | baseline p99 ms | p99 vs baseline | server CPU ms / request (app, baseline) | app RSS after (MB) | errors |",
    "|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ...runs.map(
      (run, index) =>
        `| ${index + 1} | ${run.rps.toFixed(0)} | ${run.baselineRps.toFixed(0)} | ${(run.rps / run.baselineRps).toFixed(2)} | ${run.p99} | ${run.baselineP99} | ${(run.p99 / run.baselineP99).toFixed(2)} | ${run.serverCpuMs.toFixed(2)}, ${run.baselineCpuMs.toFixed(2)} | ${run.rssMb.toFixed(0)} | ${run.errors} |`,
    ),
    "",
    `Worst p99 ratio of the ${runs.length} runs: ${worst.toFixed(2)}x.`,
    "",
  ];
}

type LightRun = {
  name: string;
  baselineFirst: boolean;
  rps: number;
  p99: number;
  baselineRps: number;
  baselineP99: number;
  errors: number;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
};

function renderLightSeries(runs: LightRun[]): string[] {
  if (runs.length === 0) return [];
  const names = [...new Set(runs.map((run) => run.name))];
  return [
    `The light paths, each pair run ${LIGHT_RUNS} more times (the baseline first in odd runs, the app first in even ones):`,
    "",
    "| scenario | run | first | req/s | baseline req/s | req/s vs baseline | p99 ms | baseline p99 ms | p99 vs baseline | errors |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ...runs.map(
      (run, index) =>
        `| ${run.name} | ${(index % LIGHT_RUNS) + 1} | ${run.baselineFirst ? "baseline" : "app"} | ${run.rps.toFixed(0)} | ${run.baselineRps.toFixed(0)} | ${(run.rps / run.baselineRps).toFixed(2)} | ${run.p99} | ${run.baselineP99} | ${(run.p99 / run.baselineP99).toFixed(2)} | ${run.errors} |`,
    ),
    "",
    ...names.map((name) => {
      const own = runs.filter((run) => run.name === name);
      return `${name}: median of ${own.length} runs ${median(own.map((run) => run.rps / run.baselineRps)).toFixed(2)}x the baseline's requests a second, p99 ${median(own.map((run) => run.p99 / run.baselineP99)).toFixed(2)}x.`;
    }),
    "",
  ];
}

function currentRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

function renderReport(
  results: Result[],
  growth: { size: number; p50: number; p99: number; rps: number; errors: number }[],
  rssMb: number,
  data: Awaited<ReturnType<typeof loadBenchData>>,
  statements: Awaited<ReturnType<typeof countStatements>>,
  downloads: DownloadResult,
  library: LibraryRun[],
  light: LightRun[],
  proxy: ProxyResult[],
): string {
  const fmt = (n: number | undefined, digits = 0) => (n === undefined ? "—" : n.toFixed(digits));
  const lines = [
    `# Benchmark ${new Date().toISOString()}`,
    "",
    `Machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${CONNECTIONS} connections, ${SECONDS} s per scenario, autocannon in the runner process on the same cores; VACUUM ANALYZE after each run of the table (as autovacuum would, seats and usage rows being written).`,
    `Data: ${Object.entries(data.counts)
      .map(([name, n]) => `${n} ${name}`)
      .join(", ")}.`,
    "",
    "| scenario | req/s | p50 ms | p99 ms | errors | unexpected status | SQL / request | server CPU ms / request | PostgreSQL CPU ms / request | req/s vs baseline | p99 vs baseline |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors} | ${r.non2xx} | ${r.statements ?? "—"} | ${fmt(r.serverCpuMs, 2)} | ${fmt(r.databaseCpuMs, 2)} | ${fmt(r.baselineRatio, 2)} | ${fmt(r.p99Ratio, 2)} |`,
    ),
    "",
    ...renderLibrarySeries(library),
    ...renderLightSeries(light),
    `Download of a ${downloads.sizeMb} MB release file, ${downloads.runs} runs each, curl writing to /dev/null:`,
    "",
    "| server | MB/s (median) | runs (MB/s) | server peak RSS before, after (MB) |",
    "|---|---:|---|---|",
    `| baseline: bare node:http piping the same file | ${fmt(downloads.baseline.median)} | ${downloads.baseline.runs.map((r) => fmt(r)).join(", ")} | |`,
    `| signed link from the install plan (/distribution/v1/files) | ${fmt(downloads.app.median)} | ${downloads.app.runs.map((r) => fmt(r)).join(", ")} | ${fmt(downloads.rssBefore)}, ${fmt(downloads.rssAfter)} |`,
    "",
    `Signed download vs bare: ${fmt(downloads.app.median / downloads.baseline.median, 2)}x the throughput; the server's peak RSS grew ${fmt(downloads.rssAfter - downloads.rssBefore)} MB over ${downloads.runs} downloads of ${downloads.sizeMb} MB.`,
    "",
    `Peak RSS of the app server: ${rssMb.toFixed(0)} MB.`,
    "",
    "Library cost by account size (4 connections):",
    "",
    "| entitled products | req/s | p50 ms | p99 ms | SQL / request | errors |",
    "|---:|---:|---:|---:|---:|---:|",
    ...growth.map(
      (g) =>
        `| ${g.size} | ${fmt(g.rps)} | ${fmt(g.p50)} | ${fmt(g.p99)} | ${g.size === 10 ? statements.library10 : statements.library1000} | ${g.errors} |`,
    ),
    "",
    `p50 ratio 1,000 / 10 products: ${fmt((growth[1]?.p50 ?? 0) / Math.max(growth[0]?.p50 ?? 1, 1), 1)}.`,
    "",
    ...renderCapacity(results),
    ...renderProxyResults(proxy, CLUSTER_WEB),
    "",
  ];
  return lines.join("\n");
}

/**
 * What one core does for each hot path, from the CPU each request cost the app's process and PostgreSQL in this
 * run (not from req/s, which on this machine also pays for the load generator): README's fleet estimate starts here.
 */
function renderCapacity(results: Result[]): string[] {
  const rows = results.filter((result) => !result.baseline && result.rps > 0 && result.serverCpuMs > 0);
  if (rows.length === 0) return [];
  // Below 5 µs a request (the 401 path, no SQL), the figure is /proc's rounding, not a cost.
  const perCore = (ms: number) => (ms >= 0.005 ? Math.round(1000 / ms).toLocaleString("en") : "—");
  return [
    "Capacity per core, from the CPU each request cost (1,000 ms / CPU ms per request):",
    "",
    "| scenario | app process: requests/s per core | PostgreSQL: requests/s per core | both together: requests/s per core |",
    "|---|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.name} | ${perCore(row.serverCpuMs)} | ${perCore(row.databaseCpuMs)} | ${perCore(row.serverCpuMs + row.databaseCpuMs)} |`,
    ),
    "",
  ];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
