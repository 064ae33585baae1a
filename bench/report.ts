import os from "node:os";
import type { BenchData } from "./data";
import type { DownloadResult } from "./downloads";
import { type ProxyResult, renderProxyResults } from "./proxy";
import type { countStatements, Result } from "./scenarios";
import { CLUSTER_WEB, CONNECTIONS, LIGHT_RUNS, NODE_FLAGS, SECONDS } from "./settings";

export type LibraryRun = {
  rps: number;
  p99: number;
  baselineRps: number;
  baselineP99: number;
  serverCpuMs: number;
  baselineCpuMs: number;
  rssMb: number;
  errors: number;
};

export function renderLibrarySeries(runs: LibraryRun[]): string[] {
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

export type LightRun = {
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

export function renderLightSeries(runs: LightRun[]): string[] {
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

export function renderReport(
  results: Result[],
  growth: { size: number; p50: number; p99: number; rps: number; errors: number }[],
  rssMb: number,
  data: BenchData,
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
