import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { errorToResponse } from "@shelf/server/edge/results";
import { callTRPCProcedure, initTRPC, TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveCredential } from "../auth/credential";
import { createContext } from "../context";
import type { Delivery } from "../delivery";
import { unwrapTrpcError } from "../errors";
import { appRouter } from "../root";
import { createAccountWithKey, createKey, createProduct, grantEntitlement, TEST_BASE_URL } from "../testing";
import { createTestDelivery } from "../testing/delivery";
import { directCall } from "./direct";

let testDb: TestDatabase;
let delivery: Delivery;
beforeAll(async () => {
  testDb = await createTestDatabase();
  delivery = await createTestDelivery();
});
afterAll(() => testDb.drop());

/** Fields that differ between two calls whatever the path (times, signatures, fresh ids). */
const VOLATILE = new Set(["checked_at", "recheck_after", "certificate", "signed_at", "signature", "last_seen_at"]);
const masked = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(masked)
    : value && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).map(([name, item]) => [name, VOLATILE.has(name) ? "~" : masked(item)]))
      : value;

/** What a call came to: its output, or the status and body the edge would answer for its error. */
async function outcome(call: () => Promise<unknown>) {
  try {
    return { ok: masked(await call()) };
  } catch (error) {
    const { status, body, unexpected } = errorToResponse(unwrapTrpcError(error));
    return { status, body, unexpected, trpc: error instanceof TRPCError ? error.code : null };
  }
}

describe("the REST edge's direct procedure call", () => {
  it("answers exactly as tRPC's own call for good and bad credentials and inputs", async () => {
    const db = testDb.db;
    const device = ["products.read", "device.entitlements", "device.usage"] as const;
    const { account, key } = await createAccountWithKey(db, { abilities: [...device] });
    const product = await createProduct(db, { deviceLimit: 1 });
    const other = await createProduct(db);
    const unpublished = await createProduct(db, { published: false });
    await grantEntitlement(db, account.id, product.id);
    const readOnly = (await createKey(db, account.id, { abilities: ["products.read"] })).key;
    const scopedElsewhere = (await createKey(db, account.id, { abilities: [...device], productId: other.id })).key;
    const today = new Date().toISOString().slice(0, 10);
    const keys = { none: null, unknown: "shelf_unknown_0000000000000000", readOnly, scopedElsewhere, key };
    const cases: { path: string; input: unknown }[] = [
      { path: "license.check", input: { product_id: product.id, device_id: "direct-1", app_version: "1.0.0" } },
      // The same device again (seated), a second device past the limit (409), and no device on a limited product.
      { path: "license.check", input: { product_id: product.id, device_id: "direct-1" } },
      { path: "license.check", input: { product_id: product.id, device_id: "direct-2" } },
      { path: "license.check", input: { product_id: product.id } },
      { path: "license.check", input: { product_id: other.id, device_id: "direct-1" } },
      { path: "license.check", input: { product_id: 2_000_000_000 } },
      { path: "license.check", input: { product_id: "7" } },
      { path: "license.check", input: { product_id: null } },
      { path: "license.check", input: {} },
      { path: "license.check", input: { product_id: product.id, device_id: "" } },
      { path: "license.check", input: { product_id: product.id, extra: true } },
      { path: "clientConfig.get", input: {} },
      { path: "clientConfig.get", input: { unexpected: 1 } },
      {
        path: "device.usage",
        input: { consent: true, days: [{ product_id: product.id, usage_date: today, launches: 2 }] },
      },
      {
        path: "device.usage",
        input: { consent: true, days: [{ product_id: other.id, usage_date: today, launches: 2 }] },
      },
      {
        path: "device.usage",
        input: { consent: true, days: [{ product_id: product.id, usage_date: "x", launches: -1 }] },
      },
      { path: "device.usage", input: { consent: "yes", days: [] } },
      // A procedure with its own level (productProcedure: scope, existence, entitlement).
      { path: "license.product", input: { product: product.id } },
      { path: "license.product", input: { product: other.id } },
      { path: "license.product", input: { product: unpublished.id } },
      { path: "license.product", input: { product: 2_000_000_000 } },
      { path: "license.product", input: { product: "abc" } },
    ];
    const compared = new Set<string>();
    for (const [name, secret] of Object.entries(keys)) {
      const credential = await resolveCredential(db, secret ? `Bearer ${secret}` : null);
      for (const { path, input } of cases) {
        const context = () => createContext({ db, credential, baseUrl: TEST_BASE_URL, delivery });
        const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
        const type = procedures[path]?._def.type as "query" | "mutation";
        const viaTrpc = await outcome(() =>
          callTRPCProcedure({
            router: appRouter,
            path,
            type,
            ctx: context(),
            getRawInput: async () => input,
            signal: undefined,
            batchIndex: 0,
          }),
        );
        const direct = await outcome(() => directCall(appRouter, path)(context(), async () => input));
        expect(direct, `${path} with ${name}: ${JSON.stringify(input)}`).toEqual(viaTrpc);
        compared.add(JSON.stringify("ok" in direct ? "ok" : direct.status));
      }
    }
    // The table reached successes and every kind of refusal.
    expect([...compared].sort()).toEqual(['"ok"', "401", "403", "404", "409", "422"].sort());
  });

  it("parses inputs and outputs as tRPC's validator middlewares do: merged inputs, async schemas, bad outputs", async () => {
    const t = initTRPC.context<Record<string, never>>().create();
    const seen: string[] = [];
    const probe = t.router({
      merged: t.procedure
        .input(z.object({ a: z.string() }))
        .use(async ({ input, next }) => {
          seen.push(`between: ${JSON.stringify(input)}`);
          return next();
        })
        .input(z.object({ b: z.number().refine(async (value) => value > 0, "must be positive") }))
        .output(z.object({ sum: z.string() }))
        .query(({ input }) => ({ sum: `${input.a}${input.b}`, dropped: "not in the output schema" })),
      badOutput: t.procedure
        .input(z.object({}))
        .output(z.object({ n: z.number() }))
        .query(() => ({ n: "one" }) as unknown as { n: number }),
      throws: t.procedure.query(() => {
        throw new TRPCError({ code: "NOT_FOUND", message: "gone" });
      }),
    });
    const cases: { path: string; input: unknown }[] = [
      { path: "merged", input: { a: "x", b: 2 } },
      { path: "merged", input: { a: "x", b: -1 } },
      { path: "merged", input: { a: 1, b: 2 } },
      { path: "merged", input: "not an object" },
      { path: "badOutput", input: {} },
      { path: "throws", input: undefined },
    ];
    for (const { path, input } of cases) {
      const describeError = (error: unknown) =>
        error instanceof TRPCError
          ? { code: error.code, message: error.message, cause: String(error.cause) }
          : { other: String(error) };
      const settle = async (call: () => Promise<unknown>) => {
        seen.length = 0;
        try {
          return { ok: await call(), seen: [...seen] };
        } catch (error) {
          return { error: describeError(error), seen: [...seen] };
        }
      };
      const viaTrpc = await settle(() =>
        callTRPCProcedure({
          router: probe,
          path,
          type: "query",
          ctx: {},
          getRawInput: async () => input,
          signal: undefined,
          batchIndex: 0,
        }),
      );
      const direct = await settle(() => directCall(probe, path)({} as never, async () => input));
      expect(direct, `${path}: ${JSON.stringify(input)}`).toEqual(viaTrpc);
    }
    // The cases reached a success (with the output's extra field stripped), and each kind of failure.
    const outcomes = await Promise.all(
      cases.map(({ path, input }) =>
        directCall(probe, path)({} as never, async () => input).then(
          (data) => JSON.stringify(data),
          (error: TRPCError) => error.code,
        ),
      ),
    );
    expect(outcomes).toEqual([
      '{"sum":"x2"}',
      "BAD_REQUEST",
      "BAD_REQUEST",
      "BAD_REQUEST",
      "INTERNAL_SERVER_ERROR",
      "NOT_FOUND",
    ]);
  });

  it("refuses a path that names no procedure when the edge is made, not on a request", () => {
    expect(() => directCall(appRouter, "license.nothing")).toThrow(/No procedure at license.nothing/);
  });
});
