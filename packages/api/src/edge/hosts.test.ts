import http from "node:http";
import { hostNames, isForwardedHeader } from "@shelf/server/edge/hosts";
import type { Edge } from "@shelf/server/edge/pipeline";
import type { EdgeRequest } from "@shelf/server/edge/request";
import { jsonResult } from "@shelf/server/edge/results";
import { RouteTable } from "@shelf/server/edge/routes";
import { createEdgeServer, type EdgeServer } from "@shelf/server/edge/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testLog } from "../testing";

/** What the legacy front host hands the API of a request's headers: contract 5.1's and X-*, nothing else. */
const LEGACY_FORWARDED = [
  "authorization",
  "content-type",
  "accept",
  "accept-language",
  "user-agent",
  "x-client-version",
  "x-forwarded-for",
] as const;

/** An edge that answers every /api request with the headers it was handed: what the API would see. */
function recordingEdge(): Edge {
  const names = [
    ...LEGACY_FORWARDED,
    "cookie",
    "range",
    "if-none-match",
    "origin",
    "referer",
    "forwarded",
    "content-length",
    "host",
  ];
  return {
    owns: (path) => path === "/api" || path.startsWith("/api/"),
    handle: async (request: EdgeRequest) =>
      jsonResult(
        200,
        Object.fromEntries(
          names.flatMap((name) => (request.header(name) === undefined ? [] : [[name, request.header(name)]])),
        ),
      ),
    routes: new RouteTable([]),
    ready: async () => true,
    close: async () => {},
  };
}

let server: EdgeServer;
let port: number;
let pages = 0;

beforeAll(async () => {
  server = createEdgeServer({
    edges: [recordingEdge()],
    fallback: async (_req, res) => {
      pages++;
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<p>a page</p>");
    },
    log: testLog,
    legacyHosts: [...hostNames("https://legacy.shelf.test"), ...hostNames("http://old.shelf.test:8080")],
  });
  port = await server.listen(0, "127.0.0.1");
});
afterAll(() => server.shutdown(1000));

/** A real HTTP request with the Host header given, as a client of that host sends it. */
function send(host: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: Record<string, string> & { error?: string } }>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method: body ? "POST" : "GET", headers: { host, ...headers } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode as number, body: text.startsWith("{") ? JSON.parse(text) : { text } }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const everything = {
  authorization: "Bearer shelf_NotARealKeyNotARealKeyNotARealKeyX",
  "content-type": "application/json",
  accept: "application/json",
  "accept-language": "ko-KR",
  "user-agent": "ShelfCLI/1.2",
  "x-client-version": "1.2.0",
  "x-forwarded-for": "203.0.113.5",
  cookie: "session=abc; theme=dark",
  range: "bytes=0-10",
  "if-none-match": '"abc"',
  origin: "https://evil.example",
  referer: "https://legacy.shelf.test/page",
  forwarded: "for=192.0.2.60",
};

/** The named headers of `everything`, as the API would see them. */
const only = (names: readonly (keyof typeof everything)[]) =>
  Object.fromEntries(names.map((name) => [name, everything[name]]));

describe("the legacy front host", () => {
  it("hands the API only authorization, content-type, accept, accept-language, user-agent and X-* headers", async () => {
    for (const host of ["legacy.shelf.test", "LEGACY.shelf.test", "legacy.shelf.test:443", "old.shelf.test:8080"]) {
      const seen = await send(host, "/api/library", everything);
      expect(seen.status, host).toBe(200);
      expect(seen.body, host).toEqual(only(LEGACY_FORWARDED));
    }
    // A body still arrives whole (its framing is the server's business, not a forwarded header).
    const posted = await send("legacy.shelf.test", "/api/license/check", everything, '{"product_id":1}');
    expect(posted.status).toBe(200);
    expect(posted.body["content-length"]).toBeUndefined();
  });

  it("leaves every header to the API's own hosts", async () => {
    for (const host of ["api.shelf.test", "old.shelf.test", "legacy.shelf.test:8443", `127.0.0.1:${port}`]) {
      const seen = await send(host, "/api/library", everything);
      expect(seen.body, host).toMatchObject({
        cookie: everything.cookie,
        range: everything.range,
        origin: everything.origin,
      });
    }
  });

  it("serves nothing but /api: pages, operator endpoints and anything else are a JSON 404 there", async () => {
    const before = pages;
    for (const path of ["/", "/account/devices", "/healthz", "/metrics", "/apiary", "/docs/api"]) {
      const answer = await send("legacy.shelf.test", path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error, path).toBe("not_found");
    }
    expect(pages).toBe(before);
    expect((await send("api.shelf.test", "/account/devices")).status).toBe(200);
    expect(pages).toBe(before + 1);
  });

  it("knows which headers are forwarded", () => {
    for (const name of ["authorization", "x-anything", "accept-language"]) expect(isForwardedHeader(name)).toBe(true);
    for (const name of ["cookie", "range", "host", "origin", "if-range", "proxy-authorization"]) {
      expect(isForwardedHeader(name)).toBe(false);
    }
    expect(hostNames("https://Legacy.Example.com/")).toEqual(["legacy.example.com", "legacy.example.com:443"]);
    expect(hostNames("http://old.example.com:8080")).toEqual(["old.example.com:8080"]);
  });
});
