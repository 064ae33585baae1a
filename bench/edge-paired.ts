import fs from "node:fs/promises";
import http from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createMetrics } from "@shelf/api";
import { createEdgeServer } from "@shelf/api/edge";
import postgres from "postgres";
import { createBaseline } from "./baseline-core";
import { createBaselineServer } from "./baseline-server";
import { startBenchEdge } from "./edge-setup";

/**
 * The Node CPU a light hot path costs in the API's edge against the baseline's own code, in one process on one
 * database, without sockets: the edge's `handle()` and the baseline's functions (key lookup, answer, JSON text) are
 * called in alternating blocks (edge, baseline, baseline, edge, ...) so that both see the same machine, and the
 * medians of the blocks' CPU per request are compared. Both answers are checked alike before measuring. DATABASE_URL
 * names the server; SHELF_PAIRED_REQUESTS requests per block (2000), SHELF_PAIRED_BLOCKS blocks per side (8),
 * SHELF_PAIRED_ONLY a scenario name's part, SHELF_PAIRED_PROFILE a folder for CPU profiles of each side's blocks.
 * SHELF_PAIRED_HEAP=1 also samples what each side allocates (V8's sampling heap profiler, every 1 KiB on average,
 * objects a GC collected included) and prints the bytes per request and the functions that allocate most.
 * SHELF_PAIRED_HTTP=1 sends the requests over HTTP instead (keep-alive, from this process) to the edge's server, as
 * the apps make it (request log, metrics), and to the baseline's server, both listening in this process: the
 * difference then includes each server's HTTP handling.
 */
const REQUESTS = Number(process.env.SHELF_PAIRED_REQUESTS ?? 2000);
const BLOCKS = Number(process.env.SHELF_PAIRED_BLOCKS ?? 8);
const CONCURRENCY = 10;

type Scenario = {
  name: string;
  method: string;
  path: string;
  body?: Record<string, unknown>;
  /** The baseline's answer: status and JSON text. */
  baseline: (authorization: string, body: unknown) => Promise<{ status: number; text: string }>;
};

type Answer = { status: number; text: string };
type Sampling = { profiles: string | undefined; heap: boolean; retained: boolean };

/** One request over HTTP on a keep-alive agent: its status and body. */
function httpSender(agent: http.Agent) {
  return (port: number, method: string, target: string, headers: Record<string, string>, body: Buffer | null) =>
    new Promise<Answer>((resolve, reject) => {
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          method,
          path: target,
          headers: body ? { ...headers, "content-length": String(body.length) } : headers,
          agent,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
          );
          response.on("error", reject);
        },
      );
      request.on("error", reject);
      request.end(body ?? undefined);
    });
}

/** The hot paths measured, each with the baseline's answer to it. */
function pairedScenarios(base: ReturnType<typeof createBaseline>, data: { updateProductId: number }): Scenario[] {
  const answered = async (answer: Promise<{ status: number; body: unknown }>) => {
    const { status, body } = await answer;
    return { status, text: JSON.stringify(body) };
  };
  return [
    {
      name: "license check, seated",
      method: "POST",
      path: "/api/license/check",
      body: { product_id: data.updateProductId, device_id: "paired-seated", app_version: "1.1.0" },
      baseline: async (header, body) => {
        const key = await base.keyOf(header);
        return key ? answered(base.licenseCheck(key, body as Record<string, string>)) : { status: 401, text: "" };
      },
    },
    {
      name: "client-config",
      method: "GET",
      path: "/api/client-config",
      baseline: async (header) => {
        const key = await base.keyOf(header);
        return key ? answered(base.clientConfig(key)) : { status: 401, text: "" };
      },
    },
  ];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    ((sorted[Math.floor((sorted.length - 1) / 2)] as number) + (sorted[Math.ceil((sorted.length - 1) / 2)] as number)) /
    2
  );
};

/** The same answer, but for what differs between any two calls (times, ids, signatures). */
const shape = (text: unknown) =>
  typeof text === "string"
    ? Object.keys(JSON.parse(text) as object)
        .sort()
        .join(",")
    : String(text);

/**
 * Measures blocks of requests: the CPU per request of each, and, as `sampling` asks, each side's CPU profiles and
 * the bytes it allocates by site (V8's sampling heap profiler).
 */
function blockMeter(scenario: Scenario, sampling: Sampling) {
  const profiled = new Map<string, object[]>();
  const allocated = new Map<string, Map<string, number>>();
  const collect = (globalThis as { gc?: (options: object) => void }).gc;
  if (sampling.retained && !collect) throw new Error("SHELF_PAIRED_HEAP=retained needs node --expose-gc.");

  async function startSampler(): Promise<Session> {
    const sampler = new Session();
    sampler.connect();
    await sampler.post("HeapProfiler.enable");
    await sampler.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: !sampling.retained,
      includeObjectsCollectedByMinorGC: !sampling.retained,
    });
    return sampler;
  }

  async function stopSampler(sampler: Session, side: string): Promise<void> {
    // Only what outlived a scavenge: what the young generation's collector copied, and maybe promoted.
    if (sampling.retained) collect?.({ type: "minor" });
    const { profile } = await sampler.post("HeapProfiler.stopSampling");
    const bySite = allocated.get(side) ?? new Map<string, number>();
    const walk = (node: typeof profile.head) => {
      const frame = node.callFrame;
      const site = `${frame.functionName || "(anonymous)"} ${path.basename(frame.url)}:${frame.lineNumber + 1}`;
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      for (const child of node.children) walk(child);
    };
    walk(profile.head);
    allocated.set(side, bySite);
    sampler.disconnect();
  }

  async function block(send: () => Promise<{ status: number }>, side?: string): Promise<number> {
    const profiler = sampling.profiles && side ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.setSamplingInterval", { interval: 100 });
      await profiler.post("Profiler.start");
    }
    const sampler = sampling.heap && side ? await startSampler() : undefined;
    const before = process.cpuUsage();
    for (let sent = 0; sent < REQUESTS; sent += CONCURRENCY) {
      const results = await Promise.all(Array.from({ length: CONCURRENCY }, send));
      if (results.some((result) => result.status !== 200)) throw new Error(`${scenario.name}: not 200`);
    }
    const cpu = process.cpuUsage(before);
    if (sampler && side) await stopSampler(sampler, side);
    if (profiler && side) {
      const { profile } = await profiler.post("Profiler.stop");
      profiled.set(side, [...(profiled.get(side) ?? []), profile]);
      profiler.disconnect();
    }
    return (cpu.user + cpu.system) / REQUESTS;
  }

  /** Writes the CPU profiles and prints what each side allocates per request, the biggest sites first. */
  async function report(): Promise<void> {
    for (const [side, list] of profiled) {
      for (const [index, profile] of list.entries()) {
        const name = `${scenario.name.replace(/\W+/g, "-")}.${side}.${index}.cpuprofile`;
        await fs.writeFile(path.join(sampling.profiles as string, name), JSON.stringify(profile));
      }
    }
    for (const [side, bySite] of allocated) {
      const requests = REQUESTS * BLOCKS;
      const total = [...bySite.values()].reduce((sum, bytes) => sum + bytes, 0);
      console.log(`  ${side}: about ${Math.round(total / requests)} bytes allocated per request; most by:`);
      for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
        console.log(`    ${String(Math.round(bytes / requests)).padStart(6)}  ${site}`);
      }
    }
  }

  return { block, report };
}

async function main() {
  const { url, data, edge, log, close } = await startBenchEdge("paired");
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  try {
    const base = createBaseline(sql, "http://bench.test");
    const overHttp = process.env.SHELF_PAIRED_HTTP === "1";
    const edgeServer = createEdgeServer({
      edges: [edge],
      fallback: async (_req, res) => void res.end(),
      log,
      ops: { metrics: createMetrics(), readiness: async () => ({ ready: true, checks: {} }) },
    });
    const edgePort = overHttp ? await edgeServer.listen(0, "127.0.0.1") : 0;
    const baselineServer = createBaselineServer(sql, "http://bench.test");
    if (overHttp) await new Promise<void>((resolve) => baselineServer.listen(0, "127.0.0.1", resolve));
    const baselinePort = overHttp ? (baselineServer.address() as AddressInfo).port : 0;
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const send = httpSender(agent);
    const authorization = `Bearer ${data.deviceKey}`;
    const scenarios = pairedScenarios(base, data).filter(
      (scenario) => !process.env.SHELF_PAIRED_ONLY || scenario.name.includes(process.env.SHELF_PAIRED_ONLY),
    );
    const sampling: Sampling = {
      profiles: process.env.SHELF_PAIRED_PROFILE,
      heap: process.env.SHELF_PAIRED_HEAP === "1" || process.env.SHELF_PAIRED_HEAP === "retained",
      retained: process.env.SHELF_PAIRED_HEAP === "retained",
    };

    for (const scenario of scenarios) {
      const bytes = scenario.body ? Buffer.from(JSON.stringify(scenario.body)) : null;
      const headers = new Map<string, string>([["authorization", authorization]]);
      if (bytes) headers.set("content-type", "application/json");
      const plainHeaders = Object.fromEntries(headers);
      const viaEdge = async () => {
        if (overHttp) return send(edgePort, scenario.method, scenario.path, plainHeaders, bytes);
        const result = await edge.handle({
          method: scenario.method,
          target: scenario.path,
          header: (name) => headers.get(name),
          body: bytes
            ? (async function* () {
                yield bytes;
              })()
            : null,
          clientAddress: "127.0.0.1",
        });
        return { status: result.status, text: Buffer.isBuffer(result.body) ? result.body.toString() : result.body };
      };
      const viaBaseline = () =>
        overHttp
          ? send(baselinePort, scenario.method, scenario.path, plainHeaders, bytes)
          : scenario.baseline(authorization, bytes ? JSON.parse(bytes.toString()) : undefined);

      const [fromEdge, fromBaseline] = [await viaEdge(), await viaBaseline()];
      if (fromEdge.status !== 200 || fromBaseline.status !== 200 || shape(fromEdge.text) !== shape(fromBaseline.text)) {
        throw new Error(`${scenario.name}: the answers differ:\n${fromEdge.text}\n${fromBaseline.text}`);
      }

      const { block, report } = blockMeter(scenario, sampling);
      await block(viaEdge);
      await block(viaBaseline);
      const edgeCpu: number[] = [];
      const baselineCpu: number[] = [];
      for (let round = 0; round < BLOCKS; round++) {
        if (round % 2 === 0) {
          edgeCpu.push(await block(viaEdge, "edge"));
          baselineCpu.push(await block(viaBaseline, "baseline"));
        } else {
          baselineCpu.push(await block(viaBaseline, "baseline"));
          edgeCpu.push(await block(viaEdge, "edge"));
        }
      }
      const [e, b] = [median(edgeCpu), median(baselineCpu)];
      console.log(
        `${scenario.name}: edge ${e.toFixed(1)} µs CPU/request, baseline ${b.toFixed(1)} µs, edge - baseline ${(e - b).toFixed(1)} µs (${(e / b).toFixed(2)}x)`,
      );
      await report();
    }
    agent.destroy();
    await edgeServer.shutdown(100);
    baselineServer.close();
  } finally {
    await sql.end();
    await close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
