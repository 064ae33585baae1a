import { createHash } from "node:crypto";
import { validate } from "@readme/openapi-parser";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createLogger } from "@shelf/server/log";
import { plainKinds } from "@shelf/server/plain";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../account-api";
import { appRouter } from "../root";
import {
  appendToRunLog,
  createAccountWithKey,
  createApiClient,
  createProduct,
  grantEntitlement,
  TEST_BASE_URL,
  testAccountServices,
  testLog,
} from "../testing";
import { collectRoutes } from "./routes";

let testDb: TestDatabase;
let request: ReturnType<typeof createApiClient>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  request = createApiClient(testDb.db);
});
afterAll(() => testDb.drop());

describe("the account API edge", () => {
  it("answers a client that goes away mid-body with 400, and never takes its socket error for the database's", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const failures: string[] = [];
    const edge = createAccountApiEdge({
      ...(await testAccountServices()),
      db: testDb.db,
      baseUrl: TEST_BASE_URL,
      log: testLog,
      rateLimiter: createRateLimiter({ points: 1_000_000 }),
      health: { up: true, reportFailure: (reason) => failures.push(reason) },
    });
    async function* resetMidway() {
      yield Buffer.from('{"consent": true, "da');
      throw Object.assign(new Error("aborted"), { code: "ECONNRESET" });
    }
    const result = await edge.handle({
      method: "POST",
      target: "/api/device/usage",
      header: (name) =>
        ({ authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": "40" })[name],
      body: resetMidway(),
      clientAddress: "203.0.113.9",
    });
    expect(result.status).toBe(400);
    expect(JSON.parse(result.body as string)).toMatchObject({ error: "malformed_request" });
    expect(failures).toEqual([]);
  });

  it("answers unknown /api paths with JSON 404, with or without a key", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    for (const auth of [null, key]) {
      const response = await request("/api/nope/nothing", { key: auth });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.body).toEqual({ message: expect.any(String), error: "not_found" });
    }
  });

  it("answers a known path with another method with 405 and Allow, and OPTIONS with 204 and Allow", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const response = await request("/api/library", { method: "DELETE", key });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(response.body.error).toBe("method_not_allowed");
    const options = await request("/api/products/7", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(options.text).toBe("");
    expect((await request("/api/nothing/here", { method: "OPTIONS" })).status).toBe(404);
  });

  it("takes only plain integers for integer parameters, after the key check, and answers malformed URLs with 400", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    for (const path of ["/api/products/1e3", "/api/products/0x10", "/api/products/1.0", "/api/products/%20"]) {
      const response = await request(path, { key });
      expect(response.status, path).toBe(422);
      expect(response.body.errors.product, path).toEqual(["must be an integer"]);
    }
    const query = await request("/api/products?category_id=1e3&tag_id=7", { key });
    expect(query.status).toBe(422);
    expect(query.body.errors).toEqual({ category_id: ["must be an integer"] });
    expect((await request("/api/products/-1", { key })).body.errors).toEqual({ product: ["must be at least 1"] });
    expect((await request("/api/products/99999999999999999999", { key })).body.errors).toEqual({
      product: ["must be an integer"],
    });
    expect((await request("/api/products/1e3")).status).toBe(401);
    for (const path of ["/api/products/%E0%A4%A", "/api/library?x=%"]) {
      const response = await request(path, { key });
      expect(response.status, path).toBe(400);
      expect(response.body.error).toBe("malformed_request");
    }
  });

  it("never reads undeclared query parameters, Object.prototype names included", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    for (const query of [
      "constructor=x",
      "__proto__=a",
      "toString=1",
      "hasOwnProperty=1",
      "__proto__[x]=1",
      "valueOf=",
    ]) {
      expect((await request(`/api/library?${query}`, { key })).status, query).toBe(200);
      expect((await request(`/api/products?${query}`, { key })).status, query).toBe(200);
      const anonymous = await request(`/api/library?${query}`);
      expect(anonymous.status, query).toBe(401);
      expect(anonymous.body.error).toBe("missing_api_key");
    }
  });

  it("refuses NUL in any text parameter and a parameter given twice, with 422 field errors", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const cases: [string, Record<string, string[]>][] = [
      ["/api/products?q=%00", { q: ["must not contain NUL characters"] }],
      ["/api/products?platform=mac%00", { platform: ["must not contain NUL characters"] }],
      ["/api/products?sort=name%00", { sort: ["must not contain NUL characters"] }],
      ["/api/products/1%00", { product: ["must not contain NUL characters"] }],
      ["/api/products?q=a&q=b", { q: ["must be given once"] }],
    ];
    for (const [path, errors] of cases) {
      const response = await request(path, { key });
      expect(response.status, path).toBe(422);
      expect(response.body, path).toEqual({ message: expect.any(String), errors });
    }
    expect((await request("/api/products?q=%00")).status).toBe(401);
  });

  it("answers a failed key lookup with a logged 500 whose line holds neither the key nor its hash", async () => {
    const broken = await createTestDatabase();
    const { key } = await createAccountWithKey(broken.db);
    // The lookup's SQL now fails; drizzle's error message carries the SQL and its parameters (the key's hash).
    await broken.sql`alter table api_keys rename column hash to digest`;
    const lines: string[] = [];
    const capture = createLogger(
      { SHELF_LOG_LEVEL: "info", SHELF_LOG_FILE: undefined },
      {},
      {
        write: (line: string) => {
          lines.push(line);
          appendToRunLog(line);
        },
      },
    );
    const edge = createAccountApiEdge({
      ...(await testAccountServices()),
      db: broken.db,
      baseUrl: TEST_BASE_URL,
      rateLimiter: createRateLimiter({ points: 100 }),
      log: capture,
    });
    const response = await createApiClient(broken.db, { edge })("/api/library", { key });
    await broken.drop();
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: "Internal server error.", error: "internal_error" });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string);
    expect(line).toMatchObject({ level: "error", reqId: response.headers.get("x-request-id") });
    expect(JSON.stringify(line)).toContain('"code":"42703"');
    expect(lines[0]).not.toContain(key);
    expect(lines[0]).not.toContain(createHash("sha256").update(key).digest("hex"));
    expect(lines[0]).not.toContain("select");
  });

  it("answers HEAD like GET, with its length and without a body", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const get = await request("/api/library", { key });
    const head = await request("/api/library", { method: "HEAD", key });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(get.text)));
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect((await request("/api/library", { method: "HEAD" })).status).toBe(401);
  });

  it("revalidates GETs with a weak ETag and answers an unchanged body with 304", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const first = await request("/api/library", { key });
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const unchanged = await request("/api/library", { key, headers: { "if-none-match": etag as string } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe("");
    const stale = await request("/api/library", { key, headers: { "if-none-match": 'W/"stale"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get("etag")).toBe(etag);
  });

  it("sets rate-limit and nosniff headers on every answer", async () => {
    const response = await request("/api/library");
    expect(response.headers.get("x-ratelimit-limit")).toBe("1000000");
    expect(Number(response.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(0);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("serves a plain route through its procedure: the product content CSS", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const styled = await createProduct(testDb.db, { contentCss: ".x { color: red }", published: false });
    await grantEntitlement(testDb.db, account.id, styled.id);
    const response = await request("/api/product-content.css", { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(response.text).toContain(`/* product ${styled.id} */`);
    expect(response.headers.get("etag")).toMatch(/^W\//);
  });

  it("uses the trusted proxy's last X-Forwarded-For entry for the per-address limit, never a forged first one", async () => {
    const edge = createAccountApiEdge({
      ...(await testAccountServices()),
      db: testDb.db,
      baseUrl: TEST_BASE_URL,
      rateLimiter: createRateLimiter({ points: 2 }),
      trustProxy: true,
      log: testLog,
    });
    const proxied = createApiClient(testDb.db, { edge });
    const statuses: number[] = [];
    for (const forged of ["1.1.1.1", "2.2.2.2", "3.3.3.3"]) {
      const response = await proxied("/api/library", { headers: { "x-forwarded-for": `${forged}, 198.51.100.4` } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });
});

describe("GET /api/openapi.json", () => {
  it("documents every route as OpenAPI 3.1 with the statuses and headers the edge really answers", async () => {
    const response = await request("/api/openapi.json");
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.servers).toEqual([{ url: TEST_BASE_URL }]);
    for (const route of collectRoutes(appRouter)) {
      const operation = document.paths[route.documentPath]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      const statuses = Object.keys(operation.responses);
      const redirectOnly = route.kind === "plain" && plainKinds(route.output).join() === "redirect";
      expect(statuses).toContain(redirectOnly ? "302" : String(route.meta.successStatus ?? 200));
      for (const status of ["400", "405", "500"]) expect(statuses, route.path).toContain(status);
      // Static answers count against no budget (OAuth's metadata), so they are never 429.
      if (route.meta.limitedBy === false) expect(statuses, route.path).not.toContain("429");
      else expect(statuses, route.path).toContain("429");
      if (route.method === "GET" && !redirectOnly) expect(statuses, route.path).toContain("304");
      if (route.meta.ability !== "public") {
        expect(operation.responses["401"].content["application/json"].schema).toEqual({
          $ref: "#/components/schemas/ErrorBody",
        });
        expect(operation.security).toEqual(
          route.meta.anonymous ? [{}, { account_api_key: [] }] : [{ account_api_key: [] }],
        );
      }
    }
    const products = document.paths["/api/products"].get;
    expect(products.responses["422"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ValidationErrorBody",
    });
    expect(Object.keys(products.responses["200"].headers)).toEqual(
      expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "ETag", "Cache-Control"]),
    );
    expect(products.responses["429"].headers).toHaveProperty("Retry-After");
    expect(products.parameters.find((p: { name: string }) => p.name === "category_id").schema.type).toBe("integer");
    expect(document.paths["/api/products/{product}"].get.responses["200"].headers).toHaveProperty("Content-Language");
    const css = document.paths["/api/product-content.css"].get;
    expect(css.responses["200"].content).toHaveProperty("text/css");
    expect(document.components.schemas.LibraryApiData).toBeDefined();
    expect(Object.keys(document.components.schemas).filter((name) => name.startsWith("error."))).toEqual([]);
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const document = (await request("/api/openapi.json")).body;
    expect(await validate(document)).toEqual({ valid: true, warnings: [], specification: "OpenAPI" });
  });
});
