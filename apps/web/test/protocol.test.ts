import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAccountWithKey } from "@shelf/api/testing";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "./server";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
let testDb: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startServer({ DATABASE_URL: testDb.url });
});
afterAll(async () => {
  await server?.stop();
  await testDb?.drop();
});

/** Sends raw bytes and reads the whole answer: what a client that is not a browser or fetch can send. */
function raw(payload: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { port, hostname } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(payload));
    let data = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => {
      data += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = data.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
  });
}

const request = (lines: string[]) => raw(`${lines.join("\r\n")}\r\n\r\n`);

/**
 * Sends a body of `size` bytes as fast as the server takes it, declared by Content-Length or chunked, and stops
 * once the answer arrives or the connection closes. Resolves with the answer and how many body bytes went out.
 */
function sendLargeBody(
  path: string,
  headers: string[],
  size: number,
  chunked: boolean,
  opening = "",
): Promise<{ status: number; body: string; sent: number }> {
  const { port, hostname } = new URL(server.url);
  const piece = Buffer.alloc(64 * 1024, "a");
  return new Promise((resolve) => {
    let answer = "";
    let sent = 0;
    let done = false;
    const socket = net.connect(Number(port), hostname);
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), body, sent });
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => {
      answer += chunk;
      const [head, body] = answer.split("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(head ?? "")?.[1]);
      if (body !== undefined && Buffer.byteLength(body, "latin1") >= length) finish();
    });
    socket.on("error", finish);
    socket.on("close", finish);
    const length = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${size}`;
    socket.write(`POST ${path} HTTP/1.1\r\n${["Host: localhost", ...headers, length].join("\r\n")}\r\n\r\n`);
    if (opening) {
      socket.write(chunked ? `${Buffer.byteLength(opening).toString(16)}\r\n${opening}\r\n` : opening);
      sent += Buffer.byteLength(opening);
    }
    const pump = () => {
      while (!done && sent < size) {
        const frame = chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
          : piece;
        sent += piece.length;
        if (!socket.write(frame)) return void socket.once("drain", pump);
      }
      if (!done && chunked) socket.write("0\r\n\r\n");
    };
    pump();
  });
}

/** The server's resident memory, as its own metrics report it. */
async function residentMiB(): Promise<number> {
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^shelf_process_resident_memory_bytes (\d+)/m.exec(metrics)?.[1]) / 1024 / 1024;
}

describe("request bodies to pages", () => {
  it("are cut at their limit with a JSON 413 while Node reads them, declared or chunked, before Next reads them", async () => {
    const size = 48 * 1024 * 1024;
    // A server action of the sign-up page, which Next would read the body of.
    const manifest = JSON.parse(
      await fs.readFile(path.join(webDir, ".next/server/server-reference-manifest.json"), "utf8"),
    ) as { node: Record<string, { workers: Record<string, unknown> }> };
    const action = Object.entries(manifest.node).find(([, entry]) => "app/sign-up/page" in entry.workers)?.[0];
    const requests: [string, string[]][] = [
      ["/auth/callback/credentials", ["Content-Type: application/x-www-form-urlencoded"]],
      ["/sign-up", [`Next-Action: ${action}`, "Content-Type: text/plain;charset=UTF-8"]],
    ];
    const before = await residentMiB();
    for (const [target, headers] of requests) {
      for (const chunked of [false, true]) {
        const answer = await sendLargeBody(target, headers, size, chunked);
        const label = `${target} ${chunked ? "chunked" : "Content-Length"}`;
        expect(answer.status, label).toBe(413);
        expect(JSON.parse(answer.body), label).toEqual({ message: expect.any(String), error: "payload_too_large" });
        expect(answer.sent, label).toBeLessThan(size);
      }
    }
    expect(await residentMiB()).toBeLessThan(before + 32);
  });

  it("to the API: a multipart form past its limit is 413, declared or chunked, whichever part it is in", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["support.report"] });
    const headers = [`Authorization: Bearer ${key}`, "Content-Type: multipart/form-data; boundary=cut-here"];
    for (const chunked of [false, true]) {
      for (const part of ['name="bundle"; filename="a.zip"', 'name="detail"']) {
        const opening = `--cut-here\r\nContent-Disposition: form-data; ${part}\r\n\r\n`;
        const answer = await sendLargeBody("/api/support/reports", headers, 48 * 1024 * 1024, chunked, opening);
        expect(answer.status, `${part} ${chunked ? "chunked" : "Content-Length"}`).toBe(413);
        expect(JSON.parse(answer.body).error).toBe("payload_too_large");
      }
    }
  });
});

describe("answers at the protocol level are the contract's JSON", () => {
  it("TRACE on /api and on pages: 405 JSON", async () => {
    for (const path of ["/api/library", "/docs/api"]) {
      const response = await request([`TRACE ${path} HTTP/1.1`, "Host: localhost", "Connection: close"]);
      expect(response.status, path).toBe(405);
      expect(response.headers["content-type"]).toContain("application/json");
      expect(JSON.parse(response.body).error).toBe("method_not_allowed");
    }
  });

  it("a malformed or missing Host header: 400 JSON", async () => {
    for (const host of ["Host: user@evil", "Host: [::1", "Host: a b"]) {
      const response = await request(["GET /api/library HTTP/1.1", host, "Connection: close"]);
      expect(response.status, host).toBe(400);
      expect(JSON.parse(response.body), host).toEqual({ message: expect.any(String), error: "malformed_request" });
    }
    const missing = await request(["GET /api/library HTTP/1.1", "Connection: close"]);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body).error).toBe("malformed_request");
  });

  it("serves HTTP/1.0 without Host (a load balancer's health check) as the server's own host", async () => {
    const health = await request(["GET /healthz HTTP/1.0"]);
    expect(health.status).toBe(200);
    const api = await request(["GET /api/library HTTP/1.0"]);
    expect(api.status).toBe(401);
    expect(JSON.parse(api.body).error).toBe("missing_api_key");
    // HAProxy's default check; Next itself answers OPTIONS on a page with an empty 400.
    const check = await request(["OPTIONS / HTTP/1.0"]);
    expect(check.status).toBe(204);
    expect(check.headers.allow).toBe("GET, HEAD, POST, OPTIONS");
  });

  it("OPTIONS *: 204 with the methods the server takes", async () => {
    const response = await request(["OPTIONS * HTTP/1.1", "Host: localhost", "Connection: close"]);
    expect(response.status).toBe(204);
    expect(response.headers.allow).toContain("GET");
  });

  it("an absolute-form target reaches the API instead of a redirect", async () => {
    const response = await request([
      `GET http://localhost/api/library HTTP/1.1`,
      "Host: localhost",
      "Connection: close",
    ]);
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).error).toBe("missing_api_key");
    const odd = await request(["GET //api/library HTTP/1.1", "Host: localhost", "Connection: close"]);
    expect(odd.headers["content-type"]).toContain("application/json");
  });

  it("Node's own parse errors: JSON 400 and 431 instead of empty bodies", async () => {
    const cases: [string, number, string][] = [
      ["GET /api/library HTTP/1.1\r\nHost: localhost\r\nX-Bad: a\u0001b\r\n\r\n", 400, "malformed_request"],
      [
        "POST /api/library HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
        "malformed_request",
      ],
      [
        `GET /api/library HTTP/1.1\r\nHost: localhost\r\nX-Long: ${"a".repeat(20_000)}\r\n\r\n`,
        431,
        "header_fields_too_large",
      ],
      ["GARBAGE\r\n\r\n", 400, "malformed_request"],
    ];
    for (const [payload, status, error] of cases) {
      const response = await raw(payload);
      expect(response.status, payload.slice(0, 40)).toBe(status);
      expect(response.headers["content-type"]).toContain("application/json");
      expect(JSON.parse(response.body).error).toBe(error);
    }
  });
});
