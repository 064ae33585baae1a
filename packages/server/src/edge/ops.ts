import { timingSafeEqual } from "node:crypto";
import type { Metrics } from "../metrics";
import type { EdgeRequest } from "./request";
import { type EdgeResult, errorResult, jsonResult } from "./results";

/** Whether this instance should get traffic, and what was checked. */
export type Readiness = { ready: boolean; checks: Record<string, unknown> };

export type OpsOptions = {
  /** The database reachable and migrated; the rate-limit store reachable when one is configured. */
  readiness: () => Promise<Readiness>;
  metrics?: Metrics;
  /** Bearer token that opens /metrics; without one, only clients on this machine (loopback) may read it. */
  metricsToken?: string;
};

export const OPS_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

const NO_STORE = { "cache-control": "no-store" };
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * The operator's endpoints. `/healthz`: the process is alive and its event loop turns (no I/O). `/readyz`: ready
 * for traffic, from checks cheap enough to poll every second (the database check is cached for a second).
 * `/metrics`: Prometheus text, not open to the public unless a token is configured.
 */
export async function opsResult(path: string, request: EdgeRequest, options: OpsOptions): Promise<EdgeResult> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResult("method_not_allowed", undefined, { allow: "GET, HEAD" });
  }
  if (path === "/healthz") return jsonResult(200, { status: "ok" }, NO_STORE);
  if (path === "/readyz") {
    const readiness = await options.readiness();
    return jsonResult(
      readiness.ready ? 200 : 503,
      { status: readiness.ready ? "ready" : "not_ready", checks: readiness.checks },
      NO_STORE,
    );
  }
  if (!options.metrics || !metricsAllowed(request, options.metricsToken)) return errorResult("not_found");
  return {
    status: 200,
    headers: { "content-type": options.metrics.registry.contentType, ...NO_STORE },
    body: await options.metrics.registry.metrics(),
  };
}

function metricsAllowed(request: EdgeRequest, token: string | undefined): boolean {
  if (!token) return LOOPBACK.test(request.clientAddress ?? "");
  const presented = /^Bearer (\S+)$/.exec(request.header("authorization") ?? "")?.[1] ?? "";
  const [a, b] = [Buffer.from(presented), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}
