import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey, createProduct, grantEntitlement } from "../testing";

const apiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const tsx = path.resolve(apiDir, "../../node_modules/.bin/tsx");

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

/** Runs a script in a new Node process, where no route has been served yet, and returns what it printed. */
async function inFreshProcess(script: string, env: Record<string, string>): Promise<unknown> {
  const { stdout } = await promisify(execFile)(tsx, ["--eval", script], {
    cwd: apiDir,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string);
}

describe("input parsing does not depend on what ran before", () => {
  it("gives a plain route with {product} the same answer first in a fresh process as after JSON routes", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    const script = `(async () => {
      const { createDb } = await import("@shelf/db");
      const { createEdge } = await import("./src/api-edge.ts");
      const { handleFetch } = await import("@shelf/server/edge/fetch");
      const { createRateLimiter } = await import("@shelf/server/rate-limit");
      const { createTestRouter } = await import("./src/testing/test-router.ts");
      const { appRouter, createCaller } = await import("./src/root.ts");
      const { createContext } = await import("./src/context.ts");
      const { resolveCredential } = await import("./src/auth/credential.ts");
      const { IdParam } = await import("./src/schemas/common.ts");
      const { mergeRouters } = await import("@trpc/server/unstable-core-do-not-import");
      const handle = createDb(process.env.TEST_DB_URL, { max: 2 });
      const router = mergeRouters(appRouter, createTestRouter({ filesDir: "/nonexistent" }));
      const edge = createEdge({ router, db: handle.db, baseUrl: "http://t", rateLimiter: createRateLimiter({ points: 1000 }) });
      const get = async (path) => {
        const response = await handleFetch(edge, new Request("http://t" + path, { headers: { authorization: "Bearer " + process.env.TEST_KEY } }));
        return response.status + " " + (await response.text()).slice(0, 80);
      };
      const callWithText = async () => {
        const credential = await resolveCredential(handle.db, "Bearer " + process.env.TEST_KEY);
        const caller = createCaller(createContext({ db: handle.db, credential, baseUrl: "http://t" }));
        return caller.products.get({ product: String(process.env.TEST_PRODUCT) }).then(() => "accepted", (error) => error.code);
      };
      const product = process.env.TEST_PRODUCT;
      const results = {
        plainFirst: await get("/api/test/products/" + product + "/note.txt"),
        callerBefore: await callWithText(),
        json: await get("/api/products/" + product),
        jsonQuery: await get("/api/products?category_id=1"),
        plainAfter: await get("/api/test/products/" + product + "/note.txt"),
        callerAfter: await callWithText(),
        idParamTakesText: IdParam.safeParse(String(product)).success,
      };
      await handle.close();
      console.log(JSON.stringify(results));
    })();`;
    const results = await inFreshProcess(script, {
      TEST_DB_URL: testDb.url,
      TEST_KEY: key,
      TEST_PRODUCT: String(product.id),
    });
    expect(results).toEqual({
      plainFirst: `200 product ${product.id}`,
      callerBefore: "BAD_REQUEST",
      json: expect.stringMatching(/^200 /),
      jsonQuery: expect.stringMatching(/^200 /),
      plainAfter: `200 product ${product.id}`,
      callerAfter: "BAD_REQUEST",
      idParamTakesText: false,
    });
  }, 60_000);
});
