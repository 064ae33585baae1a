import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createEdgeServer, type EdgeServer } from "@shelf/server/edge/server";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../account-api";
import type { ApiEdge } from "../api-edge";
import { createEdge } from "../api-edge";
import { createDesignToken } from "../auth/design-token-admin";
import { hashSecret } from "../auth/key-secret";
import { releaseArtifact } from "../catalog/releases";
import { createDesignApiEdge } from "../design-api";
import { writeVersion } from "../routers/design-docs/service";
import { publishRelease, putContentAsset } from "../routers/products/publish";
import { DEMO_DISCLOSURE } from "../routers/public/disclosure";
import {
  createAccountWithKey,
  createKey,
  createProduct,
  grantEntitlement,
  TEST_BASE_URL,
  TEST_OAUTH_SETTINGS,
  testAccountServices,
  testLog,
} from "../testing";
import { createTestDelivery } from "../testing/delivery";
import { createAnswerChecker, requestsFor, sendOverSocket } from "../testing/fuzz";
import { createTestRouter } from "../testing/test-router";

/**
 * Property-based fuzzing driven by the OpenAPI document: every operation of every edge gets generated valid,
 * boundary and invalid values in its path, query, headers and body, odd methods, prototype names, NUL and invalid
 * UTF-8, and every answer is checked against the document. Seeded (SHELF_FUZZ_SEED) and bounded in time
 * (SHELF_FUZZ_SECONDS per edge), so a failure is reproducible and CI stays fast; a new endpoint is covered as soon
 * as it is in the document.
 */
const SEED = Number(process.env.SHELF_FUZZ_SEED ?? 20261122);
const SECONDS = Number(process.env.SHELF_FUZZ_SECONDS ?? 12);
const RUNS_PER_OPERATION = Number(process.env.SHELF_FUZZ_RUNS ?? 200);

let testDb: TestDatabase;
let filesDir: string;
const edges: Record<string, ApiEdge> = {};
/** Each edge behind the server in front of it, as deployed: the answers Node and the server give are fuzzed too. */
const servers: Record<string, { server: EdgeServer; port: number }> = {};
let keys: string[] = [];
/** The design host takes design agent tokens only: its operations are fuzzed with one holding every role. */
let designKeys: string[] = [];
let known: Record<string, string[]> = {};
/** Makes a key that an operation revoking its caller may use up (scoped to the product for product-key routes). */
let spareKey: (scope: "account" | "product") => Promise<string>;
/** Stands for a spare key in a generated request; replaced by a fresh one just before it is sent. */
const SPARE = "shelf_SpareKeySpareKeySpareKeySpareKeySp";

beforeAll(async () => {
  testDb = await createTestDatabase();
  filesDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-fuzz-"));
  const { db } = testDb;
  const { account, key } = await createAccountWithKey(db);
  const product = await createProduct(db, { contentCss: ".a{}" });
  const hidden = await createProduct(db, { published: false });
  await grantEntitlement(db, account.id, product.id, { updatesSupportedUntil: new Date("2026-06-01T00:00:00Z") });
  const delivery = await createTestDelivery();
  const release = await publishRelease(
    db,
    delivery,
    { productId: product.id, version: "1.2.0", filename: "tool-1.2.0.zip" },
    [Buffer.from("0123456789")],
  );
  await putContentAsset(db, delivery.store, { productId: product.id, path: "docs/a.txt" }, [Buffer.from("0123456789")]);
  const link = new URL((await delivery.links.link(releaseArtifact(await releaseRow(db, release.id)))).url);
  const [token, filename] = link.pathname.split("/").slice(4) as [string, string];
  const scoped = await createKey(db, account.id, { productId: product.id, abilities: ["products.read"] });
  spareKey = async (scope) =>
    (await createKey(db, account.id, { kind: "device", productId: scope === "product" ? product.id : null })).key;
  const folder = path.join(filesDir, String(account.id), "docs");
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, "a.txt"), "0123456789");
  keys = [key, scoped.key];
  known = {
    product: [String(product.id), String(hidden.id)],
    server: ["1", "2"],
    name: ["docs/a.txt"],
    path: ["docs/a.txt"],
    id: [String(product.id), String(hidden.id)],
    release: [String(release.id)],
    token: [token],
    filename: [decodeURIComponent(filename)],
    version: ["1.0.0", "v2", "1.2.0-beta.1"],
  };
  const common = {
    db,
    baseUrl: TEST_BASE_URL,
    log: testLog,
    rateLimiter: createRateLimiter({ points: 1_000_000 }),
    delivery,
  };
  // The fuzzer's requests name Host 127.0.0.1: the MCP endpoints take it, so that their runs get past the door.
  edges["account API"] = createAccountApiEdge({
    ...(await testAccountServices()),
    ...common,
    disclosure: DEMO_DISCLOSURE,
    oauth: TEST_OAUTH_SETTINGS,
    allowedHosts: ["127.0.0.1"],
  });
  edges["design API"] = createDesignApiEdge({ ...common, allowedHosts: ["127.0.0.1"] });
  const agent = await createDesignToken(db, { name: "fuzzer", roles: ["collect", "read", "write", "review"] }, "shelf");
  designKeys = [agent.token];
  await writeVersion(
    db,
    { tokenId: agent.record.id, name: "fuzzer" },
    { slug: "guide", body: "# Guide", base_version: 0 },
  );
  known.slug = ["guide", "no-such-guide"];
  known.number = ["1", "2"];
  edges["test router"] = createEdge({ ...common, router: createTestRouter({ filesDir }), maxBodyBytes: 4096 });
  for (const [name, edge] of Object.entries(edges)) {
    const server = createEdgeServer({
      edges: [edge],
      fallback: async (_req, res) => void res.writeHead(404).end(),
      log: testLog,
    });
    servers[name] = { server, port: await server.listen(0, "127.0.0.1") };
  }
});
async function revokeKeyBySecret(secret: string) {
  await testDb.db
    .update(schema.apiKeys)
    .set({ revokedAt: new Date() })
    .where(eq(schema.apiKeys.hash, hashSecret(secret)));
}

async function releaseRow(db: TestDatabase["db"], id: number) {
  const [row] = await db.select().from(schema.releases).where(eq(schema.releases.id, id));
  return row as typeof schema.releases.$inferSelect;
}

afterAll(async () => {
  await Promise.all(Object.values(servers).map(({ server }) => server.shutdown(1000)));
  await testDb.drop();
  await fs.rm(filesDir, { recursive: true, force: true });
});

describe("fuzzing every operation of the document", () => {
  for (const name of ["account API", "design API", "test router"]) {
    it(
      `${name}: no 5xx, the contract's JSON on errors, every answer (Node's own too) valid against the document`,
      async () => {
        const edge = edges[name] as ApiEdge;
        const { port } = servers[name] as { port: number };
        // biome-ignore lint/suspicious/noExplicitAny: the document is walked loosely
        const document = edge.document as any;
        const check = createAnswerChecker(document);
        const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
          ([pathTemplate, item]) =>
            Object.entries(item).map(([method, operation]) => ({ pathTemplate, method, operation })),
        );
        expect(operations.length).toBeGreaterThan(3);
        const deadline = Date.now() + SECONDS * 1000;
        let runs = 0;
        const statuses = new Map<number, number>();
        for (const { pathTemplate, method, operation } of operations) {
          const budget = Math.max(500, (deadline - Date.now()) / operations.length);
          // An operation that revokes its caller's key gets spare keys, one per request, revoked after it if need be.
          const declared = operation as { "x-revokes-key"?: boolean; "x-key-scope"?: string };
          const revokes = declared["x-revokes-key"] === true;
          await fc.assert(
            fc.asyncProperty(
              requestsFor(pathTemplate, method, operation as never, document, {
                keys: name === "design API" ? designKeys : revokes ? [SPARE] : keys,
                known,
              }),
              async (request) => {
                runs++;
                let spare: string | undefined;
                if (request.headers.authorization === `Bearer ${SPARE}`) {
                  spare = await spareKey(declared["x-key-scope"] === "product" ? "product" : "account");
                  request.headers.authorization = `Bearer ${spare}`;
                }
                const answer = await sendOverSocket(port, request).finally(() => spare && revokeKeyBySecret(spare));
                statuses.set(answer.result.status, (statuses.get(answer.result.status) ?? 0) + 1);
                const answered =
                  document.paths[pathTemplate]?.[
                    request.method.toLowerCase() === "head" ? "get" : request.method.toLowerCase()
                  ];
                const jsonRpc = Object.values(document.paths[pathTemplate] ?? {}).some(
                  (declared) => (declared as { "x-json-rpc"?: boolean })["x-json-rpc"] === true,
                );
                const problem = check(request, answered, answer, { jsonRpc });
                if (problem) throw new Error(problem);
              },
            ),
            { seed: SEED, numRuns: RUNS_PER_OPERATION, interruptAfterTimeLimit: budget, markInterruptAsFailure: false },
          );
        }
        expect(runs).toBeGreaterThan(operations.length * 5);
        // The runs reach the procedures, not only the doors: a share of them succeed.
        const succeeded = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
        expect(succeeded, JSON.stringify([...statuses])).toBeGreaterThan(runs * 0.05);
      },
      (SECONDS + 30) * 1000,
    );
  }
});
