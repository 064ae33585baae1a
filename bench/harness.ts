import { spawn } from "node:child_process";
import { createWriteStream, readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";

/*
 * What the benchmarks share (`run.ts`, `gallery.ts`): a load of one request shape, a server process started and
 * waited for, and the CPU time processes used.
 */

/** A request shape under load: where it goes, and a new body per request when `nextBody` is given. */
export type LoadTarget = {
  port: number;
  path: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  nextBody?: () => string;
};

export function load(scenario: LoadTarget, duration: number, connections: number) {
  const { nextBody } = scenario;
  return autocannon({
    url: `http://127.0.0.1:${scenario.port}${scenario.path}`,
    method: scenario.method ?? "GET",
    headers: scenario.headers,
    body: scenario.body,
    ...(nextBody
      ? {
          requests: [
            {
              method: scenario.method ?? "GET",
              headers: scenario.headers,
              setupRequest: (request: Record<string, unknown>) => ({ ...request, body: nextBody() }),
            },
          ],
        }
      : {}),
    duration,
    connections,
  });
}

export async function startProcess(args: string[], cwd: string, env: Record<string, string>, ready: RegExp) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 60_000);
    let started = false;
    const onData = (chunk: Buffer) => {
      if (started) return;
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        started = true;
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    // Everything the process writes, kept for a look afterwards (e.g. Node's --trace-gc lines).
    const keep = process.env.SHELF_BENCH_CHILD_OUTPUT;
    if (keep) {
      const file = createWriteStream(`${keep}.${child.pid}`);
      child.stdout.pipe(file);
      child.stderr.pipe(file);
    }
    child.on("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, port };
}

/** CPU time (user and system) a process has used, in ms (Linux /proc; clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time of every PostgreSQL process on this machine (the server the bench uses, embedded or not), in ms. */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.includes("(postgres)")) total += cpuMs(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/**
 * Times one prepared statement as a long-running server runs it: 20 runs first, past PostgreSQL's first five custom
 * plans (the generic plan), then `runs` more, measured. PostgreSQL's CPU time (all its processes) and the wall time
 * per statement in ms, and the last run's answer.
 */
export async function timeStatement<T>(run: () => Promise<T>, runs: number) {
  for (let i = 0; i < 20; i++) await run();
  const cpu = postgresCpuMs();
  const started = performance.now();
  let last: T | undefined;
  for (let i = 0; i < runs; i++) last = await run();
  const wallMs = (performance.now() - started) / runs;
  return { cpuMs: (postgresCpuMs() - cpu) / runs, wallMs, last };
}
