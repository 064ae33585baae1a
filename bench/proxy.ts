import { readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startCluster } from "../deploy/cluster";
import { cpuMs, type LoadTarget, load, postgresCpuMs } from "./harness";

/**
 * `SHELF_BENCH_TARGET=cluster`: the hot paths through HAProxy, against the same instance asked directly. The cluster
 * is `npm run cluster`'s (deploy/cluster.ts: the instances as an operator runs them, HAProxy from
 * deploy/haproxy.cfg.template) on the benchmark's database, with SHELF_BENCH_CLUSTER_WEB web instances (1 by
 * default: the proxy's own cost, one instance behind it, is what this part measures; more instances on this one
 * machine share its cores with PostgreSQL and the load generator, so they show the proxy spreading the load, not more
 * capacity).
 */
export type ProxyScenario = Omit<LoadTarget, "port"> & { name: string; expect: number };

export type ProxyResult = {
  name: string;
  direct: Measured;
  proxied: Measured;
};

type Measured = {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  /** CPU per request, in ms: the instances together, HAProxy, PostgreSQL. */
  instanceCpuMs: number;
  proxyCpuMs: number;
  databaseCpuMs: number;
};

export async function measureThroughProxy(options: {
  databaseUrl: string;
  instances: number;
  scenarios: ProxyScenario[];
  seconds: number;
  warmupSeconds: number;
  connections: number;
  say: (line: string) => void;
}): Promise<ProxyResult[]> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-bench-cluster-"));
  const cluster = await startCluster({
    web: options.instances,
    design: 0,
    dataDir,
    databaseUrl: options.databaseUrl,
    env: {
      SHELF_RATE_LIMIT_PER_MINUTE: "1000000000",
      SHELF_LOG_FILE: path.join(dataDir, "requests.log"),
      SHELF_DEMO: undefined,
    },
    say: (line) => options.say(`    ${line}`),
  });
  try {
    const proxyPid = haproxyPid(path.join(dataDir, "haproxy.cfg"));
    const instancePids = () => cluster.instances.map((instance) => instance.pid()).filter((pid) => pid !== undefined);
    const first = cluster.instances[0];
    if (!first) throw new Error("the cluster started no web instance");
    const directPort = first.port;
    const proxyPort = Number(new URL(cluster.webUrl).port);
    const results: ProxyResult[] = [];
    for (const scenario of options.scenarios) {
      const measure = async (port: number): Promise<Measured> => {
        const target = { ...scenario, port };
        if (options.warmupSeconds > 0) await load(target, options.warmupSeconds, options.connections);
        const before = {
          instances: sum(instancePids().map(cpuMs)),
          proxy: proxyPid ? cpuMs(proxyPid) : 0,
          database: postgresCpuMs(),
        };
        const run = await load(target, options.seconds, options.connections);
        const total = Math.max(1, run.requests.total);
        const expected =
          (run.statusCodeStats as Record<string, { count: number }> | undefined)?.[String(scenario.expect)]?.count ?? 0;
        return {
          rps: run.requests.average,
          p50: run.latency.p50,
          p99: run.latency.p99,
          bad: run.errors + run.timeouts + (run.requests.total - expected),
          instanceCpuMs: (sum(instancePids().map(cpuMs)) - before.instances) / total,
          proxyCpuMs: proxyPid ? (cpuMs(proxyPid) - before.proxy) / total : Number.NaN,
          databaseCpuMs: (postgresCpuMs() - before.database) / total,
        };
      };
      const direct = await measure(directPort);
      const proxied = await measure(proxyPort);
      results.push({ name: scenario.name, direct, proxied });
      options.say(
        `  ${scenario.name}: directly ${Math.round(direct.rps)} req/s, p99 ${direct.p99} ms; through HAProxy ` +
          `${Math.round(proxied.rps)} req/s (${(proxied.rps / direct.rps).toFixed(2)}x), p99 ${proxied.p99} ms, ` +
          `HAProxy CPU ${proxied.proxyCpuMs.toFixed(3)} ms/request`,
      );
    }
    return results;
  } finally {
    await cluster.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The HAProxy process running this configuration file (the cluster does not hand out its pid). */
function haproxyPid(configFile: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (path.basename(command[0] ?? "") === "haproxy" && command.includes(configFile)) return Number(entry);
    } catch {
      // The process ended meanwhile.
    }
  }
  return undefined;
}

export function renderProxyResults(results: ProxyResult[], instances: number): string[] {
  if (results.length === 0) return [];
  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : "n/a");
  return [
    "",
    `## Through HAProxy (SHELF_BENCH_TARGET=cluster, ${instances} web instance${instances === 1 ? "" : "s"})`,
    "",
    "The same requests sent to one instance directly, then through the proxy (`deploy/haproxy.cfg.template`, as",
    "`npm run cluster` runs it). HAProxy's CPU per request is what it costs the fleet; the rest of the difference is",
    "the extra hop's latency, and HAProxy taking a share of this machine's two cores.",
    "",
    "| Scenario | Directly (req/s) | Through HAProxy (req/s) | Ratio | p99 directly / through (ms) | HAProxy CPU (ms/request) | Instance CPU (ms/request) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...results.map(
      (result) =>
        `| ${result.name} | ${Math.round(result.direct.rps)} | ${Math.round(result.proxied.rps)} | ` +
        `${(result.proxied.rps / result.direct.rps).toFixed(2)}x | ${result.direct.p99} / ${result.proxied.p99} | ` +
        `${ms(result.proxied.proxyCpuMs)} | ${ms(result.proxied.instanceCpuMs)} |`,
    ),
  ];
}
