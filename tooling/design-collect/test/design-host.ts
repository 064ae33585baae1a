import { randomBytes } from "node:crypto";
import { createDesignApiEdge, createRateLimiter, designCollectAdmin, designTokens } from "@shelf/api";
import { createEdgeServer } from "@shelf/api/edge";
import { createTestDelivery, recordSecret, startDbProxy, TEST_BASE_URL, testLog } from "@shelf/api/testing";
import { createDb, schema } from "@shelf/db";
import type { TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { type HttpProxy, startHttpProxy } from "./http-proxy";

export type DesignHostOptions = {
  /** The edge's rate limit per token: few points make real 429s. By default, more than any test sends. */
  rateLimit?: { points: number; windowSeconds: number };
};

/**
 * The real design host for the collect agent's tests: the design API edge (`createDesignApiEdge`) behind the real
 * HTTP server (`createEdgeServer`) on a free port, on a test database, with a real artifact store (a filesystem
 * folder) and a design agent token with the collect role made by `createDesignToken`.
 *
 * Faults come from real causes: the host reaches its database through a TCP proxy (`database.cut()` is an outage:
 * the host answers 503 with Retry-After), and clients reach the host through an HTTP proxy that records every
 * request and its answer and can lose an answer on the way back (`proxy.setHook`).
 */
export async function startDesignHost(testDb: TestDatabase, options: DesignHostOptions = {}) {
  const database = await startDbProxy(testDb.url);
  const pool = createDb(database.url, {
    max: 4,
    timeouts: { connectSeconds: 1, statementMs: 10_000, idleInTransactionMs: 10_000 },
  });
  const delivery = await createTestDelivery();
  const rateLimiter = createRateLimiter(
    options.rateLimit
      ? { points: options.rateLimit.points, windowSeconds: options.rateLimit.windowSeconds, name: "design-collect" }
      : { points: 1_000_000 },
  );
  const edge = createDesignApiEdge({
    db: pool.db,
    dbDeadlineMs: pool.deadlineMs,
    baseUrl: TEST_BASE_URL,
    log: testLog,
    delivery,
    rateLimiter,
  });
  const server = createEdgeServer({
    edges: [edge],
    fallback: async (_req, res) => void res.writeHead(404).end(),
    log: testLog,
  });
  const port = await server.listen(0, "127.0.0.1");
  const proxy: HttpProxy = await startHttpProxy(`http://127.0.0.1:${port}`);
  const agent = `collector-${randomBytes(4).toString("hex")}`;
  const { token } = await designTokens.createDesignToken(testDb.db, { name: agent, roles: ["collect"] }, "shelf");
  recordSecret(token);

  return {
    /** The host's address, through the recording proxy. */
    url: proxy.url,
    /** The host's address without the proxy (for a child process, whose requests need not be recorded). */
    directUrl: `http://127.0.0.1:${port}`,
    token,
    /** The token's name: the opener its runs name, and the family that sees them. */
    agent,
    proxy,
    /** What the host answered, by path (without the API's prefix) and status: `/runs/7/assets 201`. */
    answers: () =>
      proxy.requests.map(
        (request) =>
          `${request.path.replace(/^\/api\/agent\/collect/, "")} ${request.status ?? "-"}${request.lost ? " lost" : ""}`,
      ),
    /** The TCP proxy between the host and its database. */
    database,
    delivery,
    /** Reads a run as its opener sees it (`GET .../runs/{run}` over HTTP). */
    async run(id: number): Promise<Record<string, unknown>> {
      const answer = await fetch(`${proxy.url}/api/agent/collect/runs/${id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (answer.status !== 200) throw new Error(`GET run ${id}: HTTP ${answer.status} ${await answer.text()}`);
      return ((await answer.json()) as { run: Record<string, unknown> }).run;
    },
    async close() {
      await proxy.close();
      await server.shutdown(1000);
      await edge.close();
      await rateLimiter.close();
      await pool.close();
      await database.close();
    },
  };
}

export type DesignHost = Awaited<ReturnType<typeof startDesignHost>>;

/** Ends every open run (as an operator does with `design-run:fail`): the collection lock is free. */
export async function freeCollectionLock(testDb: TestDatabase): Promise<void> {
  const open = await testDb.db
    .select({ id: schema.collectRuns.id })
    .from(schema.collectRuns)
    .where(eq(schema.collectRuns.status, "open"));
  for (const { id } of open) await designCollectAdmin.failRunAsOperator(testDb.db, id, "freed by the test");
}
