import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "../log";
import type { Metrics } from "../metrics";
import { forwardedRequest } from "./hosts";
import { answerClientError, fromNode, isValidHost, originForm, writeNode } from "./node";
import { capNodeBody, lingerAfter } from "./node-body";
import { OPS_PATHS, type OpsOptions, opsResult } from "./ops";
import type { Edge } from "./pipeline";
import { type EdgeResult, errorResult } from "./results";

export type EdgeServerOptions = {
  /** The edges this server answers for, in order: each serves the paths it owns. */
  edges: Edge[];
  /** Everything else (pages): the Next.js request handler. */
  fallback: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  /** Websocket upgrades (Turbopack's HMR in development). */
  upgrade?: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;
  log: Logger;
  /** /healthz, /readyz and /metrics. */
  ops?: OpsOptions;
  /** Behind a proxy you run: take its X-Request-Id instead of making one. */
  trustProxy?: boolean;
  /**
   * `Host` values of the older front host (see `hostNames`): it serves `/api/...` only, with only the headers
   * contract 5.1 forwards; any other path there is a JSON 404.
   */
  legacyHosts?: readonly string[];
  /**
   * The most bytes a request body to a page path may hold (413 beyond), by path, enforced while Node reads it,
   * before `fallback` sees a byte (undefined: the default, 1 MiB). The edges' own paths have their own limits.
   */
  pageBodyLimit?: (path: string) => number | undefined;
};

export type EdgeServer = {
  server: http.Server;
  /** Listens and resolves with the port (useful with port 0). */
  listen: (port: number, host: string) => Promise<number>;
  /**
   * Stops accepting connections, lets the requests in flight finish for up to `timeoutMs`, then cuts whatever is
   * left. Resolves once no connection remains.
   */
  shutdown: (timeoutMs: number) => Promise<void>;
};

const DEFAULT_PAGE_BODY_BYTES = 1024 * 1024;
const METHODS_ANYWHERE = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
/** What pages take: reads, and forms and server actions. */
const PAGE_METHODS = "GET, HEAD, POST, OPTIONS";

/** The address and port a request came in on, as a Host header names them. */
function ownHost(req: http.IncomingMessage): string {
  const { localAddress = "localhost", localPort } = req.socket;
  return `${localAddress.includes(":") ? `[${localAddress}]` : localAddress}:${localPort}`;
}

/** A request id set by the proxy in front, if it is trusted and the id is plain. */
function acceptedRequestId(req: http.IncomingMessage, trustProxy: boolean | undefined): string | undefined {
  const id = req.headers["x-request-id"];
  return trustProxy && typeof id === "string" && /^[A-Za-z0-9._:-]{8,128}$/.test(id) ? id : undefined;
}

/**
 * The HTTP server in front of the apps: protocol-level answers in the contract's JSON (malformed targets and Host
 * headers, TRACE, `OPTIONS *`, Node's parse errors), the edge for its paths, Next.js for the rest, and a graceful
 * shutdown that drains requests in flight.
 */
export function createEdgeServer(options: EdgeServerOptions): EdgeServer {
  const { log } = options;
  const metrics = options.ops?.metrics;
  const legacyHosts = new Set(options.legacyHosts ?? []);
  let active = 0;
  let stopping = false;
  let drained: (() => void) | undefined;

  /** Writes an answer the server makes itself, remembering what it was for the request log. */
  const answer = (res: http.ServerResponse, result: EdgeResult, route: string) => {
    routes.set(res, route);
    return writeNode(res, result, (error) => log.error({ err: error }, "could not open a streamed body"));
  };
  const routes = new WeakMap<http.ServerResponse, string>();

  /**
   * 413 for a body over its limit, the rest of which is never passed on: the connection closes after the answer.
   * Next may still be waiting for the body it was promised; closing the socket ends that wait.
   */
  const refuseBody = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (res.headersSent) return void req.socket.destroy();
    lingerAfter(res);
    await answer(res, errorResult("payload_too_large"), "page");
  };

  async function respond(req: http.IncomingMessage, res: http.ServerResponse, requestId: string) {
    const target = originForm(req.url ?? "");
    const refused = protocolRefusal(req, target);
    if (refused) return answer(res, refused, "protocol");
    req.url = target as string;
    // `//api/x` is still the API's (a JSON 404), never a page path for Next to redirect.
    const path = ((target as string).split("?", 1)[0] as string).replace(/\/{2,}/g, "/");
    const legacy = legacyHosts.has((req.headers.host as string).toLowerCase());
    if (legacy && path !== "/api" && !path.startsWith("/api/")) {
      return answer(res, errorResult("not_found", "This host serves the API under /api only."), "legacy");
    }
    if (options.ops && OPS_PATHS.has(path)) {
      const result = await opsResult(path, fromNode(req, requestId), options.ops);
      if (req.method === "HEAD") result.body = null;
      return answer(res, result, path);
    }
    const edge = options.edges.find((candidate) => candidate.owns(path));
    if (!edge && legacy) return answer(res, errorResult("not_found", "No such API endpoint."), "legacy");
    if (!edge && req.method === "OPTIONS") {
      // Next answers OPTIONS on a page with an empty 400; it is what HAProxy's default health check sends.
      return answer(res, { status: 204, headers: { allow: PAGE_METHODS }, body: null }, "page");
    }
    if (!edge) {
      routes.set(res, "page");
      const limit = options.pageBodyLimit?.(path) ?? DEFAULT_PAGE_BODY_BYTES;
      if (!capNodeBody(req, limit, () => refuseBody(req, res))) return refuseBody(req, res);
      return options.fallback(req, res);
    }
    const request = fromNode(req, requestId);
    const result = await edge.handle(legacy ? forwardedRequest(request) : request);
    if (stopping) res.shouldKeepAlive = false;
    return answer(res, result, result.route ?? "unmatched");
  }

  // Node's own missing-Host answer is an empty 400: the check below answers it in JSON instead.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = acceptedRequestId(req, options.trustProxy) ?? randomUUID();
    res.setHeader("x-request-id", requestId);
    active++;
    res.once("close", () => {
      active--;
      logRequest(req, res, { log, metrics, route: routes.get(res) ?? "protocol", requestId, started });
      if (stopping) {
        server.closeIdleConnections();
        if (active === 0) drained?.();
      }
    });
    respond(req, res, requestId).catch((error) => {
      log.error({ reqId: requestId, err: error }, "request failed");
      if (!res.headersSent) void answer(res, errorResult("internal_error"), routes.get(res) ?? "protocol");
      else res.destroy();
    });
  });
  server.on("clientError", answerClientError);
  server.on("connect", (_req, socket) => {
    answerClientError(Object.assign(new Error("CONNECT is not served"), { code: "CONNECT" }), socket);
  });
  if (options.upgrade) {
    const upgrade = options.upgrade;
    server.on("upgrade", (req, socket, head) => {
      upgrade(req, socket, head).catch(() => socket.destroy());
    });
  }

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    shutdown: async (timeoutMs) => {
      if (stopping) return;
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (active > 0) {
        const finished = new Promise<void>((resolve) => {
          drained = resolve;
        });
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([finished, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
        clearTimeout(timer);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * What the server answers itself before any path is looked at: `OPTIONS *` (and any other method on `*`), a
 * malformed target or Host header, TRACE and TRACK. HTTP/1.0 has no Host to require (HAProxy's default health check
 * sends none): such a request is for this server itself, and gets its address as Host.
 */
function protocolRefusal(req: http.IncomingMessage, target: string | null): EdgeResult | undefined {
  if (target === "*") {
    return req.method === "OPTIONS"
      ? { status: 204, headers: { allow: METHODS_ANYWHERE }, body: null }
      : errorResult("malformed_request", "Only OPTIONS takes the * target.");
  }
  if (target === null) return errorResult("malformed_request", "The request target is malformed.");
  if (req.headers.host === undefined && req.httpVersion === "1.0") req.headers.host = ownHost(req);
  if (!isValidHost(req.headers.host))
    return errorResult("malformed_request", "The Host header is missing or malformed.");
  if (req.method === "TRACE" || req.method === "TRACK") {
    return errorResult("method_not_allowed", undefined, { allow: METHODS_ANYWHERE });
  }
  return undefined;
}

/** One line per request, and its metrics; the operator's own polling only at debug level. */
function logRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  context: { log: Logger; metrics: Metrics | undefined; route: string; requestId: string; started: bigint },
) {
  const { log, metrics, route, requestId, started } = context;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const method = req.method ?? "GET";
  metrics?.observeRequest(method, route, res.statusCode, seconds);
  const entry = {
    reqId: requestId,
    method,
    route,
    status: res.statusCode,
    ms: Math.round(seconds * 10_000) / 10,
    ...(res.writableFinished ? {} : { aborted: true }),
  };
  if (OPS_PATHS.has(route)) log.debug(entry, "request");
  else log.info(entry, "request");
}
