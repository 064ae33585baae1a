import { randomBytes } from "node:crypto";
import { createAccount, recordSecretsIn } from "@shelf/api/testing";
import { READY_AS_TESTED } from "@shelf/api/testing/apps";
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
  recordSecretsIn(server.output());
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
    const html = await page.text();
    expect(html).toContain('src="/docs/api/scalar.js"');
    expect(html).toContain('"url":"/api/openapi.json"');
    const signIn = await fetch(`${server.url}/sign-in`);
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain('name="password"');
  });
});

describe("the operator's endpoints", () => {
  it("answers /healthz and /readyz cheaply, with the database, rate-limit and artifact stores checked", async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get("cache-control")).toBe("no-store");
    expect(await ready.json()).toEqual(READY_AS_TESTED);
    expect((await fetch(`${server.url}/readyz`, { method: "POST" })).status).toBe(405);
  });

  it("serves Prometheus metrics to this machine only, with requests by route and status", async () => {
    await fetch(`${server.url}/api/library`, { headers: { authorization: `Bearer ${demoKey}` } });
    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    const text = await metrics.text();
    expect(text).toMatch(/shelf_http_requests_total\{method="GET",route="GET \/api\/library",status="200"\} \d+/);
    expect(text).toContain("shelf_http_request_duration_seconds_bucket");
    expect(text).toMatch(/shelf_db_up 1/);
    expect(text).not.toMatch(/shelf_db_queries_total/);
    expect(text).toMatch(/shelf_rate_limit_store_up\{mode="memory"\} 1/);
    expect(text).toContain("shelf_nodejs_eventloop_lag_seconds");
  });

  it("gives every answer a request id, pages included", async () => {
    for (const path of ["/api/library", "/docs/api", "/healthz"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.headers.get("x-request-id"), path).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe("metrics behind a token", () => {
  it("opens /metrics only to the configured bearer token", async () => {
    const token = "a-metrics-token-of-some-length";
    const guarded = await startServer({ DATABASE_URL: testDb.url, SHELF_METRICS_TOKEN: token });
    try {
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(404);
      const wrong = await fetch(`${guarded.url}/metrics`, { headers: { authorization: "Bearer nope" } });
      expect(wrong.status).toBe(404);
      const right = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(right.status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });
});

describe("housekeeping", () => {
  it("removes long-dead sessions on the running server's own timer", async () => {
    const account = await createAccount(testDb.db);
    await testDb.sql`insert into web_sessions (account_id, token_hash, expires_at)
      values (${account.id}, ${randomBytes(32).toString("hex")}, now() - interval '40 days')`;
    const dead = async () =>
      (
        (await testDb.sql`select count(*)::int as n from web_sessions where account_id = ${account.id}`)[0] as {
          n: number;
        }
      ).n;
    const instance = await startServer({ DATABASE_URL: testDb.url, SHELF_HOUSEKEEPING_INTERVAL_MINUTES: "0.005" });
    try {
      const deadline = Date.now() + 20_000;
      while ((await dead()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await dead()).toBe(0);
    } finally {
      await instance.stop();
    }
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
