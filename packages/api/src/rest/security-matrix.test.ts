import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AccountAbility, accountAbilities } from "../abilities";
import { appRouter } from "../root";
import { createAccount, createApiClient, createKey, createProduct, grantEntitlement } from "../testing";
import { type RestRoute, restRoutes } from "./routes";

/**
 * Every REST endpoint, read from the routers' meta, against every way a key can be wrong. A new endpoint gets
 * its rows here without anyone writing them.
 */
let testDb: TestDatabase;
let request: ReturnType<typeof createApiClient>;
let fixture: {
  product: number;
  otherProduct: number;
  unentitledProduct: number;
  keys: Record<"full" | "revoked" | "expired" | "scopedElsewhere" | "unentitled", string>;
  lacking: Map<AccountAbility, string>;
};

const MISSING_PRODUCT = 2_000_000_000;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const { db } = testDb;
  request = createApiClient(db);
  const account = await createAccount(db);
  const product = await createProduct(db);
  const otherProduct = await createProduct(db);
  const unentitledProduct = await createProduct(db);
  await grantEntitlement(db, account.id, product.id);
  await grantEntitlement(db, account.id, otherProduct.id);
  const all = [...accountAbilities];
  const full = await createKey(db, account.id, { abilities: all });
  const revoked = await createKey(db, account.id, { abilities: all });
  await db.update(schema.apiKeys).set({ revokedAt: new Date() }).where(eq(schema.apiKeys.id, revoked.record.id));
  const expired = await createKey(db, account.id, { abilities: all, expiresAt: new Date(Date.now() + 60_000) });
  await db
    .update(schema.apiKeys)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(schema.apiKeys.id, expired.record.id));
  const scopedElsewhere = await createKey(db, account.id, { abilities: all, productId: otherProduct.id });
  const stranger = await createAccount(db);
  const unentitled = await createKey(db, stranger.id, { abilities: all });
  // One account per lacking ability keeps every scope under its three-key limit.
  const lacking = new Map<AccountAbility, string>();
  for (const ability of accountAbilities) {
    const holder = await createAccount(db);
    await grantEntitlement(db, holder.id, product.id);
    const key = await createKey(db, holder.id, { abilities: all.filter((held) => held !== ability) });
    lacking.set(ability, key.key);
  }
  fixture = {
    product: product.id,
    otherProduct: otherProduct.id,
    unentitledProduct: unentitledProduct.id,
    keys: {
      full: full.key,
      revoked: revoked.key,
      expired: expired.key,
      scopedElsewhere: scopedElsewhere.key,
      unentitled: unentitled.key,
    },
    lacking,
  };
});
afterAll(() => testDb.drop());

function pathFor(route: RestRoute, product: number): string {
  return `/api${route.path.replace("{product}", String(product)).replace(/\{\w+\}/g, "1")}`;
}

function send(route: RestRoute, key: string | null, product = fixture.product) {
  return request(pathFor(route, product), {
    method: route.method,
    key,
    body: route.method === "GET" ? undefined : {},
  });
}

const routes = restRoutes.filter((route) => route.meta.ability !== "public");
const withProduct = routes.filter((route) => route.params.includes("product"));
const withAbility = routes.filter((route) => route.meta.ability !== "any-key");
const entitledOnly = routes.filter((route) => route.meta.product === "entitled");
const name = (route: RestRoute) => `${route.method} /api${route.path}`;

describe("security matrix", () => {
  it("covers every REST endpoint", () => {
    expect(routes.length).toBeGreaterThanOrEqual(7);
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { output?: unknown } }>;
    for (const route of restRoutes) {
      expect(route.meta.ability, `${name(route)} declares its ability`).toBeDefined();
      expect(procedures[route.procedure]?._def.output, `${name(route)} declares its output`).toBeDefined();
      if (route.params.includes("product"))
        expect(route.meta.product, `${name(route)} declares product access`).toBeDefined();
    }
  });

  it.each(routes.map((route) => [name(route), route] as const))(
    "%s without a key: 401 missing_api_key",
    async (_, route) => {
      const response = await send(route, null);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String), error: "missing_api_key" });
    },
  );

  it.each(routes.map((route) => [name(route), route] as const))(
    "%s with an unknown key: 401 invalid_api_key",
    async (_, route) => {
      const response = await send(route, "shelf_NotARealKeyAtAll000000000000000");
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_api_key");
    },
  );

  it.each(routes.map((route) => [name(route), route] as const))(
    "%s with a revoked key: 401 invalid_api_key",
    async (_, route) => {
      const response = await send(route, fixture.keys.revoked);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_api_key");
    },
  );

  it.each(routes.map((route) => [name(route), route] as const))(
    "%s with an expired key: 401 invalid_api_key",
    async (_, route) => {
      const response = await send(route, fixture.keys.expired);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_api_key");
    },
  );

  it.each(withAbility.map((route) => [name(route), route] as const))(
    "%s with a key lacking its ability: 403 missing_api_key_ability, before any lookup",
    async (_, route) => {
      const key = fixture.lacking.get(route.meta.ability as AccountAbility) as string;
      for (const product of [fixture.product, MISSING_PRODUCT]) {
        const response = await send(route, key, product);
        expect(response.status).toBe(403);
        expect(response.body.error).toBe("missing_api_key_ability");
      }
    },
  );

  it.each(withProduct.map((route) => [name(route), route] as const))(
    "%s with a key scoped to another product: 403 product_api_key_scope_required",
    async (_, route) => {
      const response = await send(route, fixture.keys.scopedElsewhere);
      expect(response.status).toBe(403);
      expect(response.body.error).toBe("product_api_key_scope_required");
    },
  );

  it.each(entitledOnly.map((route) => [name(route), route] as const))(
    "%s for an account without the product: 403 product_entitlement_required",
    async (_, route) => {
      const response = await send(route, fixture.keys.unentitled);
      expect(response.status).toBe(403);
      expect(response.body.error).toBe("product_entitlement_required");
    },
  );

  it.each(withProduct.map((route) => [name(route), route] as const))(
    "%s for a missing product: 404",
    async (_, route) => {
      const response = await send(route, fixture.keys.full, MISSING_PRODUCT);
      expect(response.status).toBe(404);
      expect(response.body.error).toBe("not_found");
    },
  );

  it.each(routes.map((route) => [name(route), route] as const))("%s with a full key: success", async (_, route) => {
    const response = await send(route, fixture.keys.full);
    expect(response.status, response.text).toBe(route.meta.successStatus ?? 200);
  });
});
