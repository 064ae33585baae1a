import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { RateLimiter } from "./rate-limit";

export type MetricsSources = {
  /** The database's health (up, probes, failures reported). */
  database?: {
    readonly up: boolean;
    readonly counts: { probesOk: number; probesFailed: number; failuresReported: number };
  };
  /** Connections the pool may open. */
  poolSize?: number;
  rateLimiter?: RateLimiter;
};

export type Metrics = {
  registry: Registry;
  /** One answered request: its route template (or `page`, `unmatched`), status and duration. */
  observeRequest: (method: string, route: string, status: number, seconds: number) => void;
};

/**
 * Prometheus metrics of one process (prom-client): requests by route, status and duration; the database (up, pool
 * size, probes, failures seen by requests); the rate-limit store (mode, reachable, round trips); and Node's own
 * (event loop lag, heap, GC). Statements are not counted: postgres.js's only per-statement hook (`debug`) captures a
 * stack trace for every statement (26 µs each, 7 % of a light request's CPU, profiled); the benchmark counts them.
 */
export function createMetrics(sources: MetricsSources = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "shelf_" });
  const registers = [registry];
  const requests = new Counter({
    name: "shelf_http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    labelNames: ["method", "route", "status"],
    registers,
  });
  const duration = new Histogram({
    name: "shelf_http_request_duration_seconds",
    help: "Time to answer (to the last byte written), by method and route template",
    labelNames: ["method", "route"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const { database, rateLimiter } = sources;
  new Gauge({
    name: "shelf_db_up",
    help: "1 while the database answers, 0 from a failure until a probe succeeds",
    registers,
    collect() {
      this.set(database?.up === false ? 0 : 1);
    },
  });
  new Gauge({
    name: "shelf_db_pool_max_connections",
    help: "Connections the pool may open",
    registers,
    collect() {
      this.set(sources.poolSize ?? 0);
    },
  });
  new Gauge({
    name: "shelf_db_probes",
    help: "Health probes of the database so far, by result",
    labelNames: ["result"],
    registers,
    collect() {
      this.set({ result: "ok" }, database?.counts.probesOk ?? 0);
      this.set({ result: "failed" }, database?.counts.probesFailed ?? 0);
    },
  });
  new Gauge({
    name: "shelf_db_failures_reported",
    help: "Requests that found the database down, so far",
    registers,
    collect() {
      this.set(database?.counts.failuresReported ?? 0);
    },
  });
  new Gauge({
    name: "shelf_rate_limit_store_up",
    help: "1 while the shared rate-limit store (Redis) answers; always 1 in memory",
    labelNames: ["mode"],
    registers,
    async collect() {
      const store = await rateLimiter?.store();
      if (store) this.set({ mode: store.mode }, store.reachable ? 1 : 0);
    },
  });
  new Gauge({
    name: "shelf_rate_limit_store_calls",
    help: "Round trips made to the shared rate-limit store so far",
    registers,
    collect() {
      this.set(rateLimiter?.storeCalls ?? 0);
    },
  });
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
  };
}
