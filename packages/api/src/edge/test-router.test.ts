import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { handleFetch } from "@shelf/server/edge/fetch";
import { createLogger } from "@shelf/server/log";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEdge } from "../api-edge";
import type { Caller } from "../auth/caller";
import { apiKeyResolver } from "../auth/credential";
import { publicProcedure } from "../procedures";
import { createAccountWithKey, createApiClient, createProduct, TEST_BASE_URL, testLog } from "../testing";
import { describeSecurityMatrix } from "../testing/security-matrix";
import { createTestRouter } from "../testing/test-router";
import { router } from "../trpc";

const filesDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-edge-files-"));
const testRouter = createTestRouter({ filesDir });
const edgeFor = (db: TestDatabase["db"], extra: Partial<Parameters<typeof createEdge>[0]> = {}) =>
  createEdge({
    router: testRouter,
    db,
    baseUrl: TEST_BASE_URL,
    rateLimiter: createRateLimiter({ points: 1_000_000 }),
    maxBodyBytes: 1024,
    log: testLog,
    ...extra,
  });

let testDb: TestDatabase;
let request: ReturnType<typeof createApiClient>;
let key: string;
let accountId: number;

beforeAll(async () => {
  testDb = await createTestDatabase();
  request = createApiClient(testDb.db, { edge: edgeFor(testDb.db) });
  const holder = await createAccountWithKey(testDb.db);
  key = holder.key;
  accountId = holder.account.id;
});
afterAll(async () => {
  await testDb.drop();
  await fs.rm(filesDir, { recursive: true, force: true });
});

describeSecurityMatrix("test router", { router: testRouter, edge: ({ db }) => edgeFor(db) });

describe("JSON bodies", () => {
  it("passes a typed body to the procedure untouched", async () => {
    const body = { qty: 3, flag: false, name: "x", labels: ["a"] };
    const response = await request("/api/test/echo", { method: "POST", key, body });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(body);
  });

  it("never coerces: null, empty strings and wrong types are 422, not 0 or true", async () => {
    const cases: [unknown, string][] = [
      [{ qty: null }, "qty"],
      [{ qty: "" }, "qty"],
      [{ qty: "3" }, "qty"],
      [{ qty: 1, flag: "false" }, "flag"],
      [{ qty: 1, flag: 0 }, "flag"],
      [{ qty: 1.5 }, "qty"],
    ];
    for (const [body, field] of cases) {
      const response = await request("/api/test/echo", { method: "POST", key, body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(response.body.errors), JSON.stringify(body)).toContain(field);
    }
  });

  it("refuses NUL in strings and keys, non-objects, bad JSON and bad UTF-8 with 422", async () => {
    const nul = await request("/api/test/echo", {
      method: "POST",
      key,
      body: { qty: 1, name: "a\0b", labels: ["\0"] },
    });
    expect(nul.status).toBe(422);
    expect(nul.body.errors).toEqual({
      name: ["must not contain NUL characters"],
      "labels.0": ["must not contain NUL characters"],
    });
    for (const raw of ["[1]", "3", "null", '"x"']) {
      const response = await request("/api/test/echo", {
        method: "POST",
        key,
        rawBody: raw,
        headers: { "content-type": "application/json" },
      });
      expect(response.status, raw).toBe(422);
      expect(response.body.errors.body, raw).toEqual(["must be a JSON object"]);
    }
    const broken = await request("/api/test/echo", {
      method: "POST",
      key,
      rawBody: "{",
      headers: { "content-type": "application/json" },
    });
    expect(broken.body).toEqual({ message: expect.any(String), errors: { body: ["must be valid JSON in UTF-8"] } });
    const latin1 = await request("/api/test/echo", {
      method: "POST",
      key,
      rawBody: new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]),
      headers: { "content-type": "application/json" },
    });
    expect(latin1.status).toBe(422);
  });

  it("refuses JSON nested deeper than 64 levels with 422, judged on the text before anything walks it", async () => {
    const roomy = createApiClient(testDb.db, { edge: edgeFor(testDb.db, { maxBodyBytes: 64 * 1024 }) });
    const send = (rawBody: string) =>
      roomy("/api/test/echo", { method: "POST", key, rawBody, headers: { "content-type": "application/json" } });
    const nested = (depth: number) => `{"qty":1,"labels":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const deep = await send(nested(8000));
    expect(deep.status).toBe(422);
    expect(deep.body.errors).toEqual({ body: ["must nest objects and arrays at most 64 levels deep"] });
    // Within the depth, the procedure's schema judges it; brackets inside strings are only text.
    expect((await send(nested(63))).body.errors).not.toHaveProperty("body");
    const text = await send(`{"qty":1,"labels":["${"[".repeat(500)}\\"${"{".repeat(500)}"]}`);
    expect(text.status).toBe(200);
  });

  it("answers 415 to other media types and 413 past the size limit, but only to a caller allowed in", async () => {
    const postAs = (contentType: string, rawBody: string) =>
      request("/api/test/echo", { method: "POST", key, rawBody, headers: { "content-type": contentType } });
    const text = await postAs("text/plain", "qty=1");
    expect(text.status).toBe(415);
    expect(text.body.error).toBe("unsupported_media_type");
    const suffixed = await postAs("application/vnd.shelf+json; charset=utf-8", '{"qty":2}');
    expect(suffixed.status).toBe(200);
    const large = await request("/api/test/echo", { method: "POST", key, body: { qty: 1, name: "x".repeat(2000) } });
    expect(large.status).toBe(413);
    expect(large.body.error).toBe("payload_too_large");
    const anonymous = await request("/api/test/echo", { method: "POST", body: { qty: 1, name: "x".repeat(2000) } });
    expect(anonymous.status).toBe(401);
    expect((await request("/api/test/echo", { method: "POST", key })).body.errors).toHaveProperty("qty");
  });
});

describe("plain routes", () => {
  it("parse their query like JSON routes and answer text with a weak ETag", async () => {
    const product = await createProduct(testDb.db);
    const response = await request(`/api/test/products/${product.id}/note.txt?lines=2`, { key });
    expect(response.status).toBe(200);
    expect(response.text).toBe(`product ${product.id}\nproduct ${product.id}`);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const again = await request(`/api/test/products/${product.id}/note.txt?lines=2`, {
      key,
      headers: { "if-none-match": response.headers.get("etag") as string },
    });
    expect(again.status).toBe(304);
    for (const lines of ["2.0", "0", "x"]) {
      expect((await request(`/api/test/products/${product.id}/note.txt?lines=${lines}`, { key })).status).toBe(422);
    }
  });

  it("redirect with Location and no body", async () => {
    const response = await request("/api/test/away?to=docs");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://example.test/docs");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.text).toBe("");
    expect((await request("/api/test/away?to=elsewhere")).status).toBe(422);
  });
});

describe("file routes", () => {
  const content = Buffer.from(Array.from({ length: 1000 }, (_, index) => index % 251));
  let etag: string;

  beforeAll(async () => {
    await fs.mkdir(path.join(filesDir, String(accountId), "a/b"), { recursive: true });
    await fs.writeFile(path.join(filesDir, String(accountId), "a/b/data.bin"), content);
    await fs.writeFile(path.join(filesDir, "secret.txt"), "not yours");
    etag = (await request("/api/test/files/a/b/data.bin", { key })).headers.get("etag") as string;
  });
  const file = (headers: Record<string, string> = {}, method = "GET") =>
    request("/api/test/files/a/b/data.bin", { key, headers, method });

  it("stream the whole file with its length, type, strong ETag and Accept-Ranges; HEAD opens nothing", async () => {
    const response = await request("/api/test/files/a/b/data.bin", { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe("1000");
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="data.bin"');
    expect(etag).toMatch(/^"[^"]+"$/);
    const head = await file({}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("1000");
    expect(head.text).toBe("");
  });

  it("answer single, open-ended and suffix ranges with 206 and Content-Range", async () => {
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=990-", 990, 999],
      ["bytes=-10", 990, 999],
      ["bytes=500-5000", 500, 999],
      ["bytes=-5000", 0, 999],
    ];
    for (const [range, start, end] of cases) {
      const response = await fetchBinary(range);
      expect(response.status, range).toBe(206);
      expect(response.headers.get("content-range"), range).toBe(`bytes ${start}-${end}/1000`);
      expect(response.headers.get("content-length"), range).toBe(String(end - start + 1));
      expect(response.body.equals(content.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it("answer several ranges as multipart/byteranges, merging overlaps", async () => {
    const response = await fetchBinary("bytes=0-9, 20-29, 25-34, -5");
    expect(response.status).toBe(206);
    const type = response.headers.get("content-type") as string;
    const boundary = /^multipart\/byteranges; boundary=(\w+)$/.exec(type)?.[1] as string;
    expect(boundary).toBeTruthy();
    expect(response.headers.get("content-length")).toBe(String(response.body.length));
    const parts = response.body.toString("latin1").split(`--${boundary}`).slice(1, -1);
    expect(parts).toHaveLength(3);
    const expected: [number, number][] = [
      [0, 9],
      [20, 34],
      [995, 999],
    ];
    parts.forEach((part, index) => {
      const [start, end] = expected[index] as [number, number];
      const [head, data] = part.split("\r\n\r\n") as [string, string];
      expect(head).toContain(`Content-Range: bytes ${start}-${end}/1000`);
      expect(Buffer.from(data.replace(/\r\n$/, ""), "latin1").equals(content.subarray(start, end + 1))).toBe(true);
    });
  });

  it("answer an unsatisfiable range with 416 and bytes */size, and ignore malformed ones", async () => {
    for (const range of ["bytes=1000-", "bytes=5000-6000"]) {
      const response = await file({ range });
      expect(response.status, range).toBe(416);
      expect(response.headers.get("content-range")).toBe("bytes */1000");
      expect(response.body.error).toBe("range_not_satisfiable");
    }
    for (const range of ["bytes=9-1", "items=0-1", "bytes=", "bytes=a-b", "bytes=-"]) {
      const response = await file({ range });
      expect(response.status, range).toBe(200);
      expect(response.headers.get("content-length")).toBe("1000");
    }
  });

  it("honour If-Range: a stale validator gets the whole file", async () => {
    expect((await file({ range: "bytes=0-9", "if-range": etag })).status).toBe(206);
    const stale = await file({ range: "bytes=0-9", "if-range": '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.headers.get("content-length")).toBe("1000");
    expect((await file({ range: "bytes=0-9", "if-range": `W/${etag}` })).status).toBe(200);
  });

  it("revalidate with If-None-Match and If-Modified-Since", async () => {
    const response = await file({ "if-none-match": etag });
    expect(response.status).toBe(304);
    expect(response.text).toBe("");
    expect((await file({ "if-none-match": `"other", ${etag}` })).status).toBe(304);
    expect((await file({ "if-none-match": '"other"' })).status).toBe(200);
    const lastModified = (await file()).headers.get("last-modified") as string;
    expect((await file({ "if-modified-since": lastModified })).status).toBe(304);
    expect((await file({ "if-modified-since": "Thu, 01 Jan 1970 00:00:00 GMT" })).status).toBe(200);
  });

  it("take paths with slashes, never leave the account's folder, and refuse NUL", async () => {
    for (const name of [
      "a/b/../../../secret.txt",
      "a/%2e%2e/%2e%2e/../secret.txt",
      "..%2f..%2fsecret.txt",
      "a%5c..%5csecret.txt",
    ]) {
      const response = await request(`/api/test/files/${name}`, { key });
      expect([404, 422], name).toContain(response.status);
    }
    const nul = await request("/api/test/files/a/b/data.bin%00.txt", { key });
    expect(nul.status).toBe(422);
    expect(nul.body.errors).toEqual({ name: ["must not contain NUL characters"] });
  });

  /** The body as bytes (the test client reads text). */
  async function fetchBinary(range: string) {
    const response = await handleFetch(
      edgeFor(testDb.db),
      new Request(`${TEST_BASE_URL}/api/test/files/a/b/data.bin`, {
        headers: { authorization: `Bearer ${key}`, range },
      }),
    );
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  }
});

describe("unexpected errors", () => {
  it("answer a bug with a bare JSON 500, logged once under the request id, its key-shaped text scrubbed", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(
      { SHELF_LOG_LEVEL: "info", SHELF_LOG_FILE: undefined },
      {},
      {
        write: (line: string) => lines.push(JSON.parse(line)),
      },
    );
    const BUG_SECRET = "shelf_BugBugBugBugBugBugBugBugBugBugBu";
    const buggy = router({
      bug: publicProcedure
        .meta({
          ability: "public",
          openapi: { method: "GET", path: "/api/test/bug", tags: ["test"], summary: "Fails" },
        })
        .input(z.object({}))
        .output(z.object({}))
        .query(() => {
          throw new Error(`a bug that quotes a secret: ${BUG_SECRET}`);
        }),
    });
    const client = createApiClient(testDb.db, { edge: edgeFor(testDb.db, { log, router: buggy }) });
    const response = await client("/api/test/bug");
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: "Internal server error.", error: "internal_error" });
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "error", reqId: requestId, msg: "unexpected error" });
    expect(JSON.stringify(lines)).not.toContain(BUG_SECRET);
    expect(JSON.stringify(lines)).toContain("a bug that quotes a secret: [redacted]");
  });
});

describe("credential policy", () => {
  it("refuses a well-formed credential of a kind the edge does not accept exactly like an unknown key", async () => {
    const token: Caller = {
      type: "oauth_token",
      tokenId: 1,
      clientId: "client",
      resource: "http://shelf.test/api/mcp",
      accountId,
      abilities: new Set(["products.read"]),
      productId: null,
    };
    const oauthResolver = {
      matches: (value: string) => value.startsWith("oat_"),
      resolve: async () => ({ status: "valid" as const, caller: token }),
    };
    const edge = edgeFor(testDb.db, {
      credentials: { resolvers: [apiKeyResolver, oauthResolver], accepts: new Set(["api_key"]) },
    });
    const client = createApiClient(testDb.db, { edge });
    const refused = await client("/api/test/echo", { method: "POST", key: "oat_sometoken", body: { qty: 1 } });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("invalid_api_key");
    expect((await client("/api/test/echo", { method: "POST", key, body: { qty: 1 } })).status).toBe(200);

    const mcpLike = edgeFor(testDb.db, {
      credentials: { resolvers: [apiKeyResolver, oauthResolver], accepts: new Set(["api_key", "oauth_token"]) },
    });
    const accepted = await createApiClient(testDb.db, { edge: mcpLike })("/api/test/echo", {
      method: "POST",
      key: "oat_sometoken",
      body: { qty: 1 },
    });
    expect(accepted.status).toBe(200);
  });
});
