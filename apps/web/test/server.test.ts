import { randomBytes } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "./server";

let testDb: TestDatabase;
let server: RunningServer;
let demoKey: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startServer({ DATABASE_URL: testDb.url, SHELF_DEMO: "true", SHELF_RATE_LIMIT_PER_MINUTE: "1000" });
  const match = /Demo API key: (\S+)/.exec(server.output());
  demoKey = match?.[1] as string;
});
afterAll(async () => {
  await server?.stop();
  await testDb?.drop();
});

describe("the running service", () => {
  it("prints a demo key that reads the demo library", async () => {
    expect(demoKey).toMatch(/^shelf_/);
    const response = await fetch(`${server.url}/api/library`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.items.length).toBeGreaterThan(3);
    expect(body.items[0]).toHaveProperty("product.delivery.strategy");
  });

  it("answers /api with JSON and never redirects, also for unknown paths and trailing slashes", async () => {
    for (const path of ["/api/nope", "/api/library/", "/api", "/api/products/abc/detail"]) {
      const response = await fetch(`${server.url}${path}`, {
        redirect: "manual",
        headers: { authorization: `Bearer ${demoKey}` },
      });
      expect([404, 422], path).toContain(response.status);
      expect(response.headers.get("content-type"), path).toContain("application/json");
    }
    const unauthenticated = await fetch(`${server.url}/api/library`, { redirect: "manual" });
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toEqual({ message: expect.any(String), error: "missing_api_key" });
  });

  it("serves the OpenAPI document and the pages through Next", async () => {
    const document = await (await fetch(`${server.url}/api/openapi.json`)).json();
    expect(document.paths["/api/library"]).toBeDefined();
    const page = await fetch(`${server.url}/docs/api`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="library-get"');
  });
});

describe("rate limit shared through Redis", () => {
  it("counts one window across two app processes", async () => {
    const shared = {
      DATABASE_URL: testDb.url,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      SHELF_RATE_LIMIT_PER_MINUTE: "6",
      SHELF_RATE_LIMIT_NAMESPACE: `test-${randomBytes(4).toString("hex")}`,
    };
    const instances = await Promise.all([startServer(shared), startServer(shared)]);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const instance = instances[i % 2] as RunningServer;
        const response = await fetch(`${instance.url}/api/library`, {
          headers: { authorization: `Bearer ${demoKey}` },
        });
        statuses.push(response.status);
        if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all(instances.map((instance) => instance.stop()));
    }
  });
});
