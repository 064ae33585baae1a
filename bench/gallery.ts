import { type ChildProcess, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { designGallery, gallerySchemas } from "@shelf/api";
import { createDb, type Database } from "@shelf/db";
import { databaseUrl, runMigrations, startEmbeddedPostgres } from "@shelf/db/server";
import { type SQL, sql } from "drizzle-orm";
import postgres from "postgres";
import { loadGalleryData } from "./gallery-data";
import { cpuMs, load, postgresCpuMs, startProcess } from "./harness";

/*
 * The gallery benchmark (`npm run bench:gallery`, and the end of `npm run bench`): GET /api/v1/screens of the design
 * app against an independent bare server (bench/baseline-gallery-server.ts) on a gallery of SHELF_BENCH_GALLERY_SCREENS
 * current screens (100,000 by default) across 200 apps. Every scenario's answers are checked equal first; the app's
 * statements for each are explained (EXPLAIN ANALYZE) and the run fails on a sequential scan of gallery_screens.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCREENS = Number(process.env.SHELF_BENCH_GALLERY_SCREENS ?? 100_000);
const SECONDS = Number(process.env.SHELF_BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.SHELF_BENCH_WARMUP_SECONDS ?? 2);
/**
 * Ten connections: a filtered page with its facets costs PostgreSQL tens of ms at 100,000 screens, so fifty would only
 * measure the queue (the app's database deadline then answers 503 at once, the baseline waits: neither is a figure).
 */
const CONNECTIONS = Number(process.env.SHELF_BENCH_GALLERY_CONNECTIONS ?? 10);
const OUTPUT = path.resolve(root, process.env.SHELF_BENCH_GALLERY_OUTPUT ?? "bench/results/gallery.md");
const BASE_URL = "http://design.bench.test";
/** Targets of the issue: each scenario at least this share of its baseline's requests per second, p99 at most this. */
const TARGETS = { rps: 0.8, p99: 1.5 };

/** `uncached`: the app with its facet cache off (SHELF_GALLERY_FACET_CACHE_MB=0), every request counted again. */
type Row = { name: string; query: string; app: Measured; uncached: Measured; baseline: Measured };
type Measured = { rps: number; p50: number; p99: number; errors: number; serverCpuMs: number; databaseCpuMs: number };

async function main() {
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let pgDir: string | undefined;
  if (!serverUrl) {
    pgDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-bench-gallery-pg-"));
    const embedded = await startEmbeddedPostgres({ dataDir: pgDir });
    serverUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const database = `shelf_gallery_${randomBytes(3).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const url = databaseUrl(serverUrl, database);
  const children: ChildProcess[] = [];
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-bench-gallery-data-"));
  try {
    await runMigrations(url);
    const handle = createDb(url, { max: 4 });
    const bulk = postgres(url, { max: 1, onnotice: () => {} });
    console.log(`Loading a gallery of ${SCREENS} screens...`);
    const started = Date.now();
    const data = await loadGalleryData({ db: handle.db, sql: bulk }, { screens: SCREENS, apps: 200 });
    await bulk.end();
    console.log(
      `  ${Object.entries(data.counts)
        .map(([name, n]) => `${n} ${name}`)
        .join(", ")} in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    const [first, second] = data.patterns;
    const scenarios = [
      { name: "no filter", query: "" },
      { name: "one pattern", query: `?patterns=${first}` },
      {
        name: "two patterns, viewport and language",
        query: `?patterns=${first}&patterns=${second}&viewport=mobile&lang=ko`,
      },
      { name: "q in English", query: `?q=${encodeURIComponent(data.words.en)}` },
      { name: "q in Korean", query: `?q=${encodeURIComponent(data.words.ko)}` },
      { name: "next page without facets", query: `?patterns=${first}&page=2&facets=false` },
    ];
    const plans = await explainScenarios(handle.db, scenarios);
    await handle.close();

    if (!existsSync(path.join(root, "apps/design/.next/BUILD_ID")) || process.env.SHELF_BENCH_BUILD === "1") {
      console.log("Building the design app...");
      execFileSync("npx", ["next", "build"], { cwd: path.join(root, "apps/design"), stdio: "inherit" });
    }
    const env = {
      DATABASE_URL: url,
      SHELF_DATA_DIR: dataDir,
      SHELF_DESIGN_URL: BASE_URL,
      SHELF_LOG_FILE: path.join(os.tmpdir(), `shelf-bench-${database}.log`),
      SHELF_RATE_LIMIT_PER_MINUTE: "1000000000",
      DESIGN_PORT: "0",
      HOST: "127.0.0.1",
    };
    const app = await startProcess(
      ["--import", "tsx", "server.ts"],
      path.join(root, "apps/design"),
      env,
      /running at http:\/\/localhost:(\d+)/,
    );
    children.push(app.child);
    const uncached = await startProcess(
      ["--import", "tsx", "server.ts"],
      path.join(root, "apps/design"),
      { ...env, SHELF_GALLERY_FACET_CACHE_MB: "0" },
      /running at http:\/\/localhost:(\d+)/,
    );
    children.push(uncached.child);
    const baseline = await startProcess(
      ["--import", "tsx", "bench/baseline-gallery-server.ts"],
      root,
      env,
      /gallery baseline listening on (\d+)/,
    );
    children.push(baseline.child);

    // The same answer from both, or the ratios mean nothing.
    for (const scenario of scenarios) {
      const [ours, theirs, counted] = await Promise.all(
        [app.port, baseline.port, uncached.port].map(async (port) => {
          const response = await fetch(`http://127.0.0.1:${port}/api/v1/screens${scenario.query}`);
          if (response.status !== 200) throw new Error(`${scenario.name}: ${response.status} from port ${port}`);
          return response.json();
        }),
      );
      for (const [name, answer] of [
        ["app", ours],
        ["app without its facet cache", counted],
      ] as const) {
        const at = firstDifference(answer, theirs);
        if (at === null) continue;
        throw new Error(
          `The baseline answers ${scenario.name} differently from the ${name} at ${at.path}:\n` +
            `  ${name}: ${JSON.stringify(at.ours)?.slice(0, 1000)}\n  baseline: ${JSON.stringify(at.theirs)?.slice(0, 1000)}`,
        );
      }
      const answer = ours as { total: number; items: unknown[] };
      console.log(`  ${scenario.name}: the same answer (${answer.total} screens, ${answer.items.length} on the page)`);
    }

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const measure = async (port: number, pid: number): Promise<Measured> => {
        const target = { port, path: `/api/v1/screens${scenario.query}` };
        if (WARMUP_SECONDS > 0) await load(target, WARMUP_SECONDS, CONNECTIONS);
        const before = { server: cpuMs(pid), database: postgresCpuMs() };
        const run = await load(target, SECONDS, CONNECTIONS);
        const total = Math.max(1, run.requests.total);
        return {
          rps: run.requests.average,
          p50: run.latency.p50,
          p99: run.latency.p99,
          errors: run.errors + run.timeouts + run.non2xx,
          serverCpuMs: (cpuMs(pid) - before.server) / total,
          databaseCpuMs: (postgresCpuMs() - before.database) / total,
        };
      };
      const base = await measure(baseline.port, baseline.child.pid as number);
      const ours = await measure(app.port, app.child.pid as number);
      const cold = await measure(uncached.port, uncached.child.pid as number);
      rows.push({ ...scenario, app: ours, uncached: cold, baseline: base });
      console.log(
        `  ${scenario.name}: ${Math.round(ours.rps)} req/s (baseline ${Math.round(base.rps)}, ${(ours.rps / base.rps).toFixed(2)}x), p99 ${ours.p99} ms (baseline ${base.p99} ms); without the facet cache ${Math.round(cold.rps)} req/s, p99 ${cold.p99} ms`,
      );
    }
    const report = renderReport(rows, plans, data.counts);
    await fs.mkdir(path.dirname(OUTPUT), { recursive: true });
    await fs.writeFile(OUTPUT, report);
    console.log(`\n${report}`);
    const scans = plans.filter((plan) => /Seq Scan on gallery_screens\b/.test(plan.text));
    const failed = rows.filter((row) => row.app.errors > 0 || row.uncached.errors > 0 || row.baseline.errors > 0);
    if (scans.length > 0)
      console.error(`Sequential scans of gallery_screens: ${scans.map((plan) => plan.name).join(", ")}`);
    if (failed.length > 0) console.error(`Scenarios with errors: ${failed.map((row) => row.name).join(", ")}`);
    if (scans.length > 0 || failed.length > 0) process.exitCode = 1;
  } finally {
    for (const child of children) if (child.pid) process.kill(-child.pid, "SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 500));
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(path.join(os.tmpdir(), `shelf-bench-${database}.log`), { force: true });
    await stopEmbedded?.();
    if (pgDir) await fs.rm(pgDir, { recursive: true, force: true });
  }
}

/**
 * The app's own statements for each scenario, as its service runs them (a database that records what it is asked),
 * each explained with ANALYZE and BUFFERS on the loaded gallery.
 */
async function explainScenarios(db: Database, scenarios: { name: string; query: string }[]) {
  const plans: { name: string; text: string }[] = [];
  for (const scenario of scenarios) {
    const statements: SQL[] = [];
    const recording = new Proxy(db, {
      get(target, property, receiver) {
        if (property === "execute") {
          return (query: SQL) => {
            statements.push(query);
            return target.execute(query);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const params = new URLSearchParams(scenario.query.slice(1));
    const raw: Record<string, unknown> = {};
    for (const name of new Set(params.keys())) {
      const values = params.getAll(name);
      raw[name] =
        name === "page" || name === "cols"
          ? Number(values[0])
          : name === "facets"
            ? values[0] === "true"
            : ["patterns", "components", "elements", "fonts", "colors"].includes(name)
              ? values
              : values[0];
    }
    await designGallery.listScreens(recording, { baseUrl: BASE_URL }, gallerySchemas.ScreensInput.parse(raw));
    const texts = [];
    for (const statement of statements) {
      const rows = (await db.execute(sql`explain (analyze, buffers, costs off) ${statement}`)) as unknown as {
        "QUERY PLAN": string;
      }[];
      texts.push(rows.map((row) => row["QUERY PLAN"]).join("\n"));
    }
    plans.push({ name: scenario.name, text: texts.join("\n\n") });
  }
  return plans;
}

function renderReport(rows: Row[], plans: { name: string; text: string }[], counts: Record<string, number>): string {
  const cpu = execFileSync("sh", ["-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();
  const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
  const lines = [
    `# Gallery benchmark: GET /api/v1/screens at ${counts["current screens"]} screens`,
    "",
    `${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${SECONDS} s per run after ${WARMUP_SECONDS} s of warm-up, ${CONNECTIONS} connections, load average at the end ${os.loadavg()[0]?.toFixed(2)}.`,
    `Gallery: ${Object.entries(counts)
      .map(([name, n]) => `${n} ${name}`)
      .join(", ")}. Targets: at least ${TARGETS.rps}x the baseline's requests per second, p99 at most ${TARGETS.p99}x.`,
    "",
    "The app keeps each filter's facets per gallery generation (counted once per replay and process); the columns",
    '"without the cache" are the same app with `SHELF_GALLERY_FACET_CACHE_MB=0`, which keeps nothing but still lets',
    "requests that arrive while a filter is being counted share that count (the baseline counts for each request).",
    "",
    "| scenario | req/s | baseline req/s | ratio | p50 ms | p99 ms | baseline p99 ms | p99 ratio | server CPU ms/req | PostgreSQL CPU ms/req | errors (app, baseline) | targets | req/s without the cache | ratio | p99 ms | p99 ratio | PostgreSQL CPU ms/req |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((row) => {
      const rps = ratio(row.app.rps, row.baseline.rps);
      const p99 = ratio(row.app.p99, row.baseline.p99);
      // A baseline that failed requests measured nothing to compare with.
      const met =
        row.baseline.errors > 0 || row.app.errors > 0
          ? "not comparable"
          : rps >= TARGETS.rps && p99 <= TARGETS.p99
            ? "met"
            : "**missed**";
      const cold = row.uncached;
      return `| ${row.name} (\`${row.query || "no parameters"}\`) | ${Math.round(row.app.rps)} | ${Math.round(row.baseline.rps)} | ${rps.toFixed(2)} | ${row.app.p50} | ${row.app.p99} | ${row.baseline.p99} | ${p99.toFixed(2)} | ${row.app.serverCpuMs.toFixed(2)} | ${row.app.databaseCpuMs.toFixed(2)} | ${row.app.errors}, ${row.baseline.errors} | ${met} | ${Math.round(cold.rps)} | ${ratio(cold.rps, row.baseline.rps).toFixed(2)} | ${cold.p99} | ${ratio(cold.p99, row.baseline.p99).toFixed(2)} | ${cold.databaseCpuMs.toFixed(2)} |`;
    }),
    "",
    "## The app's plans",
    "",
    ...plans.flatMap((plan) => [`### ${plan.name}`, "", "```", plan.text, "```", ""]),
  ];
  return `${lines.join("\n")}\n`;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

/** Where two JSON answers first part ways (a path such as `.facets.lang[2].count`), or null when they are equal. */
function firstDifference(
  ours: unknown,
  theirs: unknown,
  path = "",
): { path: string; ours: unknown; theirs: unknown } | null {
  if (isDeepStrictEqual(ours, theirs)) return null;
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    if (ours.length !== theirs.length) return { path: `${path}.length`, ours: ours.length, theirs: theirs.length };
    for (const [index, item] of ours.entries()) {
      const found = firstDifference(item, theirs[index], `${path}[${index}]`);
      if (found) return found;
    }
  }
  if (ours && theirs && typeof ours === "object" && typeof theirs === "object" && !Array.isArray(ours)) {
    const a = ours as Record<string, unknown>;
    const b = theirs as Record<string, unknown>;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference(a[key], b[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return { path: path || "(the whole answer)", ours, theirs };
}
