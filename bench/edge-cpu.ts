import fs from "node:fs/promises";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { createEdgeServer } from "@shelf/api/edge";
import { startBenchEdge } from "./edge-setup";

/**
 * The edge's own CPU per request of the light hot paths, in this process, without Next.js or another server's noise:
 * a node:http server of the edge alone, requests sent one batch at a time from this process, and the process's CPU
 * time per request (the client's share included, alike for every variant). `--cpu-prof` on this script profiles it.
 * DATABASE_URL names the server; SHELF_EDGE_CPU_REQUESTS how many requests per scenario (2000); SHELF_EDGE_CPU_PROFILE a
 * folder for a CPU profile of each scenario's measured rounds (open in Chrome's DevTools).
 */
const REQUESTS = Number(process.env.SHELF_EDGE_CPU_REQUESTS ?? 2000);
const CONCURRENCY = 10;

async function main() {
  const { data, edge, log, close } = await startBenchEdge("edgecpu");
  let server: ReturnType<typeof createEdgeServer> | undefined;
  try {
    server = createEdgeServer({ edges: [edge], fallback: async (_req, res) => void res.end(), log });
    const port = await server.listen(0, "127.0.0.1");
    type EdgeScenario = {
      name: string;
      path: string;
      init: { method: string; headers: Record<string, string>; body?: string };
    };
    const all: EdgeScenario[] = [
      {
        name: "license check, seated",
        init: {
          method: "POST",
          headers: { authorization: `Bearer ${data.deviceKey}`, "content-type": "application/json" },
          body: JSON.stringify({
            product_id: data.updateProductId,
            device_id: "edge-cpu-seated",
            app_version: "1.1.0",
          }),
        },
        path: "/api/license/check",
      },
      {
        name: "client-config",
        init: { method: "GET", headers: { authorization: `Bearer ${data.deviceKey}` } },
        path: "/api/client-config",
      },
    ];
    const scenarios = all.filter(
      (scenario) => !process.env.SHELF_EDGE_CPU_ONLY || scenario.name.includes(process.env.SHELF_EDGE_CPU_ONLY),
    );
    // `direct`: the edge's handle() alone, no socket on either side: what the edge itself costs, without the noise.
    const direct = process.env.SHELF_EDGE_CPU_DIRECT === "1";
    for (const scenario of scenarios) {
      const headers = new Map(
        Object.entries(scenario.init.headers).map(([name, value]) => [name.toLowerCase(), value]),
      );
      const body = scenario.init.body === undefined ? null : Buffer.from(scenario.init.body);
      const send = async () => {
        if (direct) {
          const result = await edge.handle({
            method: scenario.init.method ?? "GET",
            target: scenario.path,
            header: (name) => headers.get(name),
            body: body
              ? (async function* () {
                  yield body;
                })()
              : null,
            clientAddress: "127.0.0.1",
          });
          if (result.status !== 200) throw new Error(`${scenario.name}: ${result.status} ${result.body}`);
          return;
        }
        const response = await fetch(`http://127.0.0.1:${port}${scenario.path}`, scenario.init);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${scenario.name}: ${response.status}`);
      };
      for (let i = 0; i < 300; i++) await send();
      const profiler = process.env.SHELF_EDGE_CPU_PROFILE ? new Session() : undefined;
      if (profiler) {
        profiler.connect();
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.start");
      }
      for (let round = 0; round < 3; round++) {
        const before = process.cpuUsage();
        const started = performance.now();
        for (let sent = 0; sent < REQUESTS; sent += CONCURRENCY)
          await Promise.all(Array.from({ length: CONCURRENCY }, send));
        const cpu = process.cpuUsage(before);
        const ms = performance.now() - started;
        console.log(
          `${scenario.name}: ${((cpu.user + cpu.system) / 1000 / REQUESTS).toFixed(3)} ms CPU/request, ${Math.round((REQUESTS / ms) * 1000)} req/s`,
        );
      }
      if (profiler) {
        const { profile } = await profiler.post("Profiler.stop");
        const file = path.join(
          process.env.SHELF_EDGE_CPU_PROFILE as string,
          `${scenario.name.replace(/\W+/g, "-")}.cpuprofile`,
        );
        await fs.writeFile(file, JSON.stringify(profile));
        profiler.disconnect();
      }
    }
  } finally {
    await server?.shutdown(100);
    await close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
