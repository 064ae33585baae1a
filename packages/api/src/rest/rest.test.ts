import { validate } from "@readme/openapi-parser";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey, createApiClient } from "../testing";
import { restRoutes } from "./routes";

let testDb: TestDatabase;
let request: ReturnType<typeof createApiClient>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  request = createApiClient(testDb.db);
});
afterAll(() => testDb.drop());

describe("REST edge", () => {
  it("answers unknown /api paths with JSON 404, with or without a key", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    for (const auth of [null, key]) {
      const response = await request("/api/nope/nothing", { key: auth });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.body).toEqual({ message: expect.any(String), error: "not_found" });
    }
  });

  it("answers a known path with the wrong method with 405 and Allow", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const response = await request("/api/library", { method: "DELETE", key });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect(response.body.error).toBe("method_not_allowed");
  });

  it("takes only plain integers for integer parameters, and answers malformed URLs with 400", async () => {
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
    expect((await request("/api/products/1e3")).status).toBe(401);
    for (const path of ["/api/products/%E0%A4%A", "/api/library?x=%"]) {
      const response = await request(path, { key });
      expect(response.status, path).toBe(400);
      expect(response.body.error).toBe("malformed_request");
    }
  });

  it("answers JSON 500 when the database fails before any procedure runs", async () => {
    const broken = await createTestDatabase();
    const brokenRequest = createApiClient(broken.db);
    await broken.drop();
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const response = await brokenRequest("/api/library", { key: "shelf_whatever" });
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ message: "Internal server error.", error: "internal_error" });
      expect(errors).toHaveLength(1);
    } finally {
      console.error = original;
    }
  });

  it("answers HEAD like GET, without a body", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const response = await request("/api/library", { method: "HEAD", key });
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
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

  it("sets rate-limit headers on every answer", async () => {
    const response = await request("/api/library");
    expect(response.headers.get("x-ratelimit-limit")).toBe("1000000");
    expect(Number(response.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(0);
  });
});

describe("GET /api/openapi.json", () => {
  it("documents every REST path as OpenAPI 3.1 with the contract's error bodies", async () => {
    const response = await request("/api/openapi.json");
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toMatch(/^3\.1\./);
    for (const route of restRoutes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(operation.responses)).toContain(String(route.meta.successStatus ?? 200));
      if (route.meta.ability !== "public") {
        expect(operation.responses["401"].content["application/json"].schema).toEqual({
          $ref: "#/components/schemas/ErrorBody",
        });
        expect(operation.security).toEqual([{ account_api_key: [] }]);
      }
    }
    expect(document.paths["/products"].get.responses["422"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ValidationErrorBody",
    });
    expect(document.paths["/product-content.css"].get.responses["200"].content).toHaveProperty("text/css");
    expect(document.components.schemas.LibraryApiData).toBeDefined();
    expect(Object.keys(document.components.schemas).filter((name) => name.startsWith("error."))).toEqual([]);
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const document = (await request("/api/openapi.json")).body;
    expect(await validate(document)).toEqual({ valid: true, warnings: [], specification: "OpenAPI" });
  });
});
