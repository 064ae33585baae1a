import { createDb, type DbHandle, schema } from "@shelf/db";
import { createDatabaseHealth, type DatabaseHealth } from "@shelf/db/server";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { handleFetch } from "@shelf/server/edge/fetch";
import { opsResult } from "@shelf/server/edge/ops";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../account-api";
import { createEdge } from "../api-edge";
import type { AccountServices } from "../context";
import {
  createAccountWithKey,
  createApiClient,
  createProduct,
  grantEntitlement,
  TEST_BASE_URL,
  TEST_OAUTH_SETTINGS,
  testAccountServices,
  testLog,
} from "../testing";
import { startDbProxy } from "../testing/db-proxy";
import { MCP_INITIALIZE, mcpPost } from "../testing/mcp";
import { createTestRouter } from "../testing/test-router";

/** The bound on any answer while the database is gone: the request deadline plus scheduling slack. */
const STATEMENT_MS = 1000;
const BOUND_MS = STATEMENT_MS + 1000 + 1500;

let testDb: TestDatabase;
let proxy: Awaited<ReturnType<typeof startDbProxy>>;
let pool: DbHandle;
let health: DatabaseHealth;
let request: ReturnType<typeof createApiClient>;
let key: string;
let serverId: number;

/** The account host's services of this file's edges (made once: the shared test delivery). */
let services: AccountServices;

beforeAll(async () => {
  services = await testAccountServices();
  testDb = await createTestDatabase();
  const holder = await createAccountWithKey(testDb.db);
  key = holder.key;
  const product = await createProduct(testDb.db);
  await grantEntitlement(testDb.db, holder.account.id, product.id);
  const [server] = await testDb.db
    .insert(schema.mcpServers)
    .values({ accountId: holder.account.id, productId: product.id, name: "Outage" })
    .returning();
  serverId = server?.id as number;

  proxy = await startDbProxy(testDb.url);
  pool = createDb(proxy.url, {
    max: 4,
    timeouts: { connectSeconds: 1, statementMs: STATEMENT_MS, idleInTransactionMs: 5000 },
  });
  health = createDatabaseHealth(proxy.url, { probeTimeoutMs: 500, probeIntervalMs: 200, maxAgeMs: 0 });
  const edge = createEdge({
    router: createTestRouter({ filesDir: "/nonexistent" }),
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    health,
    log: testLog.child({}, { level: "error" }),
    baseUrl: TEST_BASE_URL,
    rateLimiter: createRateLimiter({ points: 1_000_000 }),
  });
  request = createApiClient(testDb.db, { edge });
});
afterAll(async () => {
  await health?.close();
  await pool?.close();
  await proxy?.close();
  await testDb?.drop();
});

type Answer = { at: number; status: number; ms: number; error?: string; retryAfter: string | null; tool?: string };

/**
 * Reads and writes every 100 ms while `during` runs; returns every answer, and when (ms from the start) each step of
 * `during` took effect: a loaded machine runs timers late, so windows are judged from these marks, not from the pauses.
 */
async function trickle(during: (mark: (name: string) => void) => Promise<void>) {
  const answers: Answer[] = [];
  const marks: Record<string, number> = {};
  let running = true;
  let sequence = 0;
  const start = Date.now();
  const loop = (async () => {
    const inflight: Promise<void>[] = [];
    while (running) {
      const tool = `mark-${start}-${sequence++}`;
      for (const send of [
        () => request(`/api/test/mcp-servers/${serverId}`, { key }),
        () => request(`/api/test/mcp-servers/${serverId}/tools`, { method: "POST", key, body: { name: tool } }),
      ]) {
        const sent = Date.now();
        inflight.push(
          send().then((response) => {
            answers.push({
              at: sent - start,
              status: response.status,
              ms: Date.now() - sent,
              error: response.body?.error,
              retryAfter: response.headers.get("retry-after"),
              ...(response.status === 201 ? { tool } : {}),
            });
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await Promise.all(inflight);
  })();
  await during((name) => {
    marks[name] = Date.now() - start;
  });
  running = false;
  await loop;
  return { answers, at: (name: string) => marks[name] as number };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The account API's edge (OAuth and the MCP among its routes) on the pool behind the proxy. */
function accountApiThroughProxy() {
  return createAccountApiEdge({
    ...services,
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    health,
    log: testLog.child({}, { level: "error" }),
    baseUrl: TEST_BASE_URL,
    rateLimiter: createRateLimiter({ points: 1_000_000 }),
    oauth: TEST_OAUTH_SETTINGS,
  });
}

/** A request to an edge from `address`: its status, how long it took, its JSON body and headers. */
async function timed(edge: Parameters<typeof handleFetch>[0], request: Request, address: string) {
  const sent = Date.now();
  const response = await handleFetch(edge, request, address);
  return { status: response.status, ms: Date.now() - sent, body: await response.json(), headers: response.headers };
}

async function expectAcknowledgedWritesKept(answers: Answer[]) {
  const acknowledged = answers.flatMap((answer) => (answer.tool ? [answer.tool] : []));
  const stored = await testDb.db
    .select({ name: schema.mcpTools.name })
    .from(schema.mcpTools)
    .where(eq(schema.mcpTools.mcpServerId, serverId));
  const names = new Set(stored.map((row) => row.name));
  expect(acknowledged.filter((tool) => !names.has(tool))).toEqual([]);
}

function expectHonestOutage(answers: Answer[]) {
  const statuses = new Set(answers.map((answer) => answer.status));
  expect([...statuses].filter((status) => ![200, 201, 503].includes(status))).toEqual([]);
  for (const answer of answers.filter((candidate) => candidate.status === 503)) {
    expect(answer.error).toBe("service_unavailable");
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    expect(answer.ms).toBeLessThan(BOUND_MS);
  }
}

describe("the database going away under a trickle of requests", () => {
  it("is 503 with Retry-After within the bound while refused, 200 again after, nothing acknowledged lost", async () => {
    const { answers, at } = await trickle(async (mark) => {
      await pause(600);
      mark("cutting");
      await proxy.cut();
      mark("cut");
      await pause(2500);
      mark("restoring");
      await proxy.restore();
      mark("restored");
      await pause(2500);
    });
    expectHonestOutage(answers);
    const during = answers.filter((answer) => answer.at > at("cut") + 200 && answer.at < at("restoring"));
    expect(during.length).toBeGreaterThan(10);
    expect(during.every((answer) => answer.status === 503)).toBe(true);
    expect(answers.filter((answer) => answer.at < at("cutting") - 100).every((answer) => answer.status < 300)).toBe(
      true,
    );
    // The health probe runs every 200 ms and a new connection may take up to its 1 s connect timeout.
    expect(answers.filter((answer) => answer.at > at("restored") + 1400).every((answer) => answer.status < 300)).toBe(
      true,
    );
    await expectAcknowledgedWritesKept(answers);
  }, 30_000);

  it("is 503 within the bound while frozen, then fails fast until it answers again", async () => {
    const { answers, at } = await trickle(async (mark) => {
      await pause(600);
      proxy.freeze();
      mark("frozen");
      await pause(4500);
      mark("restoring");
      await proxy.restore();
      mark("restored");
      await pause(2500);
    });
    expectHonestOutage(answers);
    const late = answers.filter((answer) => answer.at > at("frozen") + 2900 && answer.at < at("restoring") - 100);
    expect(late.length).toBeGreaterThan(10);
    // Once the database is known down, requests do not wait for it.
    expect(late.filter((answer) => answer.status === 503).every((answer) => answer.ms < 200)).toBe(true);
    expect(answers.filter((answer) => answer.at > at("restored") + 1400).every((answer) => answer.status < 300)).toBe(
      true,
    );
    await expectAcknowledgedWritesKept(answers);
  }, 30_000);

  it("flips readiness with the database", async () => {
    const ready = async () => {
      const result = await opsResult(
        "/readyz",
        { method: "GET", target: "/readyz", header: () => undefined, body: null, clientAddress: "127.0.0.1" },
        {
          readiness: async () => {
            const db = await health.check();
            return { ready: db.reachable && db.migrated, checks: { database: db } };
          },
        },
      );
      return { status: result.status, body: JSON.parse(result.body as string) };
    };
    expect(await ready()).toEqual({
      status: 200,
      body: { status: "ready", checks: { database: { reachable: true, migrated: true } } },
    });
    await proxy.cut();
    const down = await ready();
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      status: "not_ready",
      checks: { database: { reachable: false, migrated: false } },
    });
    await proxy.restore();
    let back = await ready();
    for (let attempt = 0; attempt < 20 && back.status !== 200; attempt++) {
      await pause(100);
      back = await ready();
    }
    expect(back.status).toBe(200);
  }, 30_000);

  it("gives the authorization server's endpoints the same fast 503s while frozen, in OAuth's terms", async () => {
    const accountApi = accountApiThroughProxy();
    const tokenRequest = () =>
      timed(
        accountApi,
        new Request(`${TEST_BASE_URL}/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x", client_id: "shelfc_nobody" }),
        }),
        "203.0.113.40",
      );
    expect((await tokenRequest()).body.error).toBe("invalid_client");
    proxy.freeze();
    // The first waits for the deadline and tells the health monitor; the next ones are refused at once.
    const first = await tokenRequest();
    expect(first.status).toBe(503);
    expect(first.ms).toBeLessThan(BOUND_MS);
    const next = await tokenRequest();
    expect(next).toMatchObject({ status: 503, body: { error: "temporarily_unavailable" } });
    expect(next.ms).toBeLessThan(200);
    expect(next.body.error_description).toEqual(expect.any(String));
    expect(next.headers.get("retry-after")).toBe("2");
    expect(next.headers.get("access-control-allow-origin")).toBe("*");
    await proxy.restore();
    let back = await tokenRequest();
    for (let attempt = 0; attempt < 30 && back.status === 503; attempt++) {
      await pause(100);
      back = await tokenRequest();
    }
    expect(back.body.error).toBe("invalid_client");
  }, 30_000);

  it("gives the account MCP the same fast 503s while frozen: initialize and a session's tool call, in JSON-RPC", async () => {
    const accountApi = accountApiThroughProxy();
    const initialize = MCP_INITIALIZE;
    const mcp = (body: unknown, sessionId?: string) =>
      timed(
        accountApi,
        new Request(
          `${TEST_BASE_URL}/api/mcp`,
          mcpPost(body, {
            host: new URL(TEST_BASE_URL).host,
            authorization: `Bearer ${key}`,
            ...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" } : {}),
          }),
        ),
        "203.0.113.41",
      );
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "library_get", arguments: {} } };
    const opened = await mcp(initialize);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id") as string;
    expect((await mcp(call, sessionId)).body.result.isError).toBeUndefined();

    proxy.freeze();
    // The first waits no longer than the deadline (credential, session and the tool's procedure all under it), and
    // tells the health monitor; the next ones, initialize included, are refused at once.
    const first = await mcp(call, sessionId);
    expect(first.status).toBe(503);
    expect(first.ms).toBeLessThan(BOUND_MS);
    for (const [body, session] of [
      [initialize, undefined],
      [call, sessionId],
    ] as const) {
      const next = await mcp(body, session);
      expect(next.status).toBe(503);
      expect(next.ms).toBeLessThan(200);
      expect(next.body).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: expect.any(String), data: { error: "service_unavailable" } },
      });
      expect(next.headers.get("retry-after")).toBe("2");
      expect(next.headers.get("x-content-type-options")).toBe("nosniff");
      expect(next.headers.get("x-request-id")).toBeTruthy();
    }
    await proxy.restore();
    let back = await mcp(call, sessionId);
    for (let attempt = 0; attempt < 30 && back.status === 503; attempt++) {
      await pause(100);
      back = await mcp(call, sessionId);
    }
    expect(back.status).toBe(200);
    expect(back.body.result.isError).toBeUndefined();
  }, 30_000);
});
