import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Edge } from "./handler";
import { answerClientError, fromNode, isValidHost, originForm, writeNode } from "./node";
import { errorResult } from "./results";

export type EdgeServerOptions = {
  /** The edges this server answers for, in order: each serves the paths it owns. */
  edges: Edge[];
  /** Everything else (pages): the Next.js request handler. */
  fallback: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  /** Websocket upgrades (Turbopack's HMR in development). */
  upgrade?: (req: http.IncomingMessage, socket: import("node:stream").Duplex, head: Buffer) => Promise<void>;
  onUnexpectedError?: (error: unknown) => void;
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

const METHODS_ANYWHERE = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

/**
 * The HTTP server in front of the apps: protocol-level answers in the contract's JSON (malformed targets and Host
 * headers, TRACE, `OPTIONS *`, Node's parse errors), the edge for its paths, Next.js for the rest, and a graceful
 * shutdown that drains requests in flight.
 */
export function createEdgeServer(options: EdgeServerOptions): EdgeServer {
  const onUnexpectedError = options.onUnexpectedError ?? ((error) => console.error("Request failed", error));
  let active = 0;
  let stopping = false;
  let drained: (() => void) | undefined;

  async function respond(req: http.IncomingMessage, res: http.ServerResponse) {
    const target = originForm(req.url ?? "");
    if (target === "*") {
      const answer =
        req.method === "OPTIONS"
          ? { status: 204, headers: { allow: METHODS_ANYWHERE }, body: null }
          : errorResult("malformed_request", "Only OPTIONS takes the * target.");
      return writeNode(res, answer);
    }
    if (target === null) return writeNode(res, errorResult("malformed_request", "The request target is malformed."));
    if (!isValidHost(req.headers.host)) {
      return writeNode(res, errorResult("malformed_request", "The Host header is missing or malformed."));
    }
    if (req.method === "TRACE" || req.method === "TRACK") {
      return writeNode(res, errorResult("method_not_allowed", undefined, { allow: METHODS_ANYWHERE }));
    }
    req.url = target;
    // `//api/x` is still the API's (a JSON 404), never a page path for Next to redirect.
    const path = (target.split("?", 1)[0] as string).replace(/\/{2,}/g, "/");
    const edge = options.edges.find((candidate) => candidate.owns(path));
    if (!edge) return options.fallback(req, res);
    const result = await edge.handle(fromNode(req));
    if (stopping) res.shouldKeepAlive = false;
    return writeNode(res, result);
  }

  // Node's own missing-Host answer is an empty 400: the check below answers it in JSON instead.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    active++;
    res.once("close", () => {
      active--;
      if (stopping) {
        server.closeIdleConnections();
        if (active === 0) drained?.();
      }
    });
    respond(req, res).catch((error) => {
      onUnexpectedError(error);
      if (!res.headersSent) void writeNode(res, errorResult("internal_error"));
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
