import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import type { Edge } from "@shelf/server/edge/pipeline";
import { jsonTextSchema } from "@shelf/server/json-text";
import { plainKinds } from "@shelf/server/plain";
import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { type AccountAbility, accountAbilities } from "../abilities";
import { sessionCaller, startWebSession } from "../auth/web-session";
import { createContext } from "../context";
import type { Delivery } from "../delivery";
import { collectRoutes, type EdgeRoute } from "../edge/routes";
import { type DomainErrorCode, domainErrors } from "../errors";
import { createCallerFactory, type ListedRow, type Meta, type RequestExample } from "../trpc";
import { contractMismatch } from "./contract";
import { createTestDelivery } from "./delivery";
import { createAccount, createKey, createProduct, grantEntitlement } from "./factories";
import { accountServicesOf, createApiClient, TEST_BASE_URL } from "./harness";
import { answerShows, holdsRowLists } from "./listed-rows";
import { recordSecret } from "./secrets";

/** An integer no row has: every `{id}`-like parameter of a missing target. */
export const MISSING_ID = 2_000_000_000;
export const MISSING_TEXT = "no-such-target";

type Fixture = {
  accountId: number;
  product: number;
  otherProduct: number;
  keys: Record<"full" | "revoked" | "expired" | "scopedElsewhere" | "unentitled" | "neighbour", string>;
  lacking: Map<AccountAbility, string>;
  examples: Map<EdgeRoute, RequestExample>;
  /** For each procedure listing the account's rows: the caller's own rows, and another buyer's of the product. */
  listed: Map<string, { own: ListedRow[]; foreign: ListedRow[] }>;
  /** The router's procedures as the account pages call them, for a person of the account signed in. */
  signedIn: Record<string, unknown>;
  /** The input of each page read that names a target of the account (an invoice): its example's built body. */
  pageInputs: Map<string, unknown>;
};

/** A procedure of the account pages (`signed-in`) that reads: its lists are the person's account's. */
type PageRead = { procedure: string; meta: Meta; output: unknown };

function pageReads(router: AnyRouter): PageRead[] {
  return Object.entries(router._def.procedures as Record<string, AnyProcedure>)
    .map(([procedure, { _def }]) => ({ procedure, def: _def as { type: string; meta?: Meta; output?: unknown } }))
    .filter(({ def }) => def.type === "query" && def.meta?.ability === "signed-in")
    .map(({ procedure, def }) => ({ procedure, meta: def.meta as Meta, output: def.output }));
}

/** A host's router, how to build its edge on a test database, and the MCP endpoints (`meta.mcp`) it must declare. */
export type SecurityMatrixOptions = {
  router: AnyRouter;
  edge: (testDb: TestDatabase, delivery: Delivery) => Edge;
  /** As `METHOD /path`. */
  mcp?: readonly string[];
};

/**
 * Every route of an edge against every way a credential can be wrong, plus a success row and, for routes naming
 * something other than a product, a missing-target row and a cross-account row; a read listing the account's rows
 * (REST, or a procedure of the account pages) gets a row showing the caller's and never another account's. Rows come from the routes' own meta (ability,
 * product rule, example): a new endpoint gets its rows without anyone writing them.
 */
export function describeSecurityMatrix(title: string, options: SecurityMatrixOptions) {
  let testDb: TestDatabase;
  let edge: Edge;
  let request: ReturnType<typeof createApiClient>;
  let fixture: Fixture;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const { db } = testDb;
    const delivery = await createTestDelivery();
    edge = options.edge(testDb, delivery);
    request = createApiClient(db, { edge });
    const account = await createAccount(db);
    const product = await createProduct(db);
    const otherProduct = await createProduct(db);
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
    // Another buyer of the same product: whatever the owner's request names must be invisible to them.
    const neighbour = await createAccount(db);
    await grantEntitlement(db, neighbour.id, product.id);
    const neighbourKey = await createKey(db, neighbour.id, { abilities: all });
    // One account per lacking ability keeps every scope under its three-key limit.
    const lacking = new Map<AccountAbility, string>();
    for (const ability of accountAbilities) {
      const holder = await createAccount(db);
      await grantEntitlement(db, holder.id, product.id);
      const key = await createKey(db, holder.id, { abilities: all.filter((held) => held !== ability) });
      lacking.set(ability, key.key);
    }
    const examples = new Map<EdgeRoute, RequestExample>();
    for (const route of routes) {
      const build = route.meta.example?.build;
      const example = build
        ? await build({ db, accountId: account.id, productId: product.id, delivery })
        : { params: route.params.some((param) => param.name === "product") ? { product: product.id } : {} };
      examples.set(route, example);
    }
    const listed = new Map<string, { own: ListedRow[]; foreign: ListedRow[] }>();
    for (const { procedure, meta } of [...routes, ...pages]) {
      const list = meta.example?.listed;
      if (!list) continue;
      const own = await list({ db, accountId: account.id, productId: product.id, delivery });
      const foreign = await list({ db, accountId: neighbour.id, productId: product.id, delivery });
      listed.set(procedure, { own, foreign });
    }
    // Built after the lists: a page read's target is the account's row its listed example made.
    const pageInputs = new Map<string, unknown>();
    for (const { procedure, meta } of pages) {
      const build = meta.example?.build;
      if (build) {
        pageInputs.set(procedure, (await build({ db, accountId: account.id, productId: product.id, delivery })).body);
      }
    }
    const session = await startWebSession(db, account.id);
    recordSecret(session.secret);
    const signedIn = createCallerFactory(options.router)(
      createContext({
        db,
        credential: { status: "valid", caller: sessionCaller(account.id, session.sessionId) },
        baseUrl: TEST_BASE_URL,
        ...accountServicesOf(delivery),
      }),
    );
    fixture = {
      accountId: account.id,
      product: product.id,
      otherProduct: otherProduct.id,
      keys: {
        full: full.key,
        revoked: revoked.key,
        expired: expired.key,
        scopedElsewhere: scopedElsewhere.key,
        unentitled: unentitled.key,
        neighbour: neighbourKey.key,
      },
      lacking,
      examples,
      listed,
      signedIn,
      pageInputs,
    };
  });
  afterAll(() => testDb.drop());

  /** The route's example, with some parameters replaced. */
  function send(route: EdgeRoute, key: string | null, params: Record<string, string | number> = {}) {
    const example = fixture.examples.get(route) ?? {};
    const values = { ...example.params, ...params };
    const path = route.path.replace(/\{(\w+)(\+?)\}/g, (_, name: string, rest: string) => {
      const value = String(values[name] ?? MISSING_ID);
      return rest ? value.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(value);
    });
    const query = new URLSearchParams(example.query ?? {}).toString();
    return request(query ? `${path}?${query}` : path, {
      method: route.method,
      key,
      headers: example.headers,
      body: route.method === "GET" ? undefined : (example.body ?? {}),
    });
  }

  function expectOnlyOwnRows(procedure: string, answer: unknown) {
    const { own, foreign } = fixture.listed.get(procedure) as { own: ListedRow[]; foreign: ListedRow[] };
    for (const row of own) expect(answerShows(answer, row), `${JSON.stringify(row)} is shown`).toBe(true);
    for (const row of foreign)
      expect(answerShows(answer, row), `another account's ${JSON.stringify(row)} is shown`).toBe(false);
  }

  function missingParams(route: EdgeRoute): Record<string, string | number> {
    const missing: Record<string, string | number> = {};
    for (const param of route.params) {
      if (param.name === "product") continue;
      missing[param.name] = route.meta.example?.missing?.[param.name] ?? (param.rest ? MISSING_TEXT : MISSING_ID);
    }
    return missing;
  }

  const routes = collectRoutes(options.router);
  const pages = pageReads(options.router);
  /** What success looks like: the declared status, or a redirect for a route whose output may be one. */
  const successStatuses = (route: EdgeRoute) => {
    const kinds = route.kind === "plain" ? plainKinds(route.output) : [];
    const redirects = kinds.includes("redirect") ? [302, 303, 307] : [];
    const alternate = route.meta.alternateSuccess ? [route.meta.alternateSuccess.status] : [];
    return kinds.length === 1 && redirects.length
      ? redirects
      : [route.meta.successStatus ?? 200, ...alternate, ...redirects];
  };
  const keyed = routes.filter((route) => route.meta.ability !== "public");
  const keyRequired = keyed.filter((route) => !route.meta.anonymous);
  const withProduct = keyed.filter((route) => route.params.some((param) => param.name === "product"));
  const productKeyOnly = withProduct.filter((route) => route.meta.keyScope === "product");
  const withAbility = keyed.filter((route) => route.meta.ability !== "any-key");
  const entitledOnly = keyed.filter((route) => route.meta.product === "entitled");
  const withTarget = routes.filter((route) => route.params.some((param) => param.name !== "product"));
  const targetKind = (route: EdgeRoute) => route.meta.example?.target ?? "account";
  const lookedUp = withTarget.filter((route) => targetKind(route) !== "signed");
  const accountTargets = withTarget.filter((route) => targetKind(route) === "account");
  const productTargets = withTarget.filter((route) => ["product", "public"].includes(targetKind(route)));
  const signedTargets = withTarget.filter((route) => targetKind(route) === "signed");
  const accountLists = routes.filter((route) => route.meta.example?.listed);
  const pageLists = pages.filter((page) => page.meta.example?.listed);
  // A read of one account target (an order) has the cross-account row: its lists are the target's own.
  const reads = routes.filter(
    (route) =>
      route.method === "GET" &&
      route.kind === "json" &&
      route.meta.ability !== "public" &&
      !accountTargets.includes(route),
  );
  const name = (route: EdgeRoute) => `${route.method} ${route.path}`;
  const rows = (list: EdgeRoute[]) => list.map((route) => [name(route), route] as const);

  describe(`security matrix: ${title}`, () => {
    it("covers every REST endpoint, each declaring its ability, output, product rule and example", () => {
      expect(routes.length).toBeGreaterThan(0);
      for (const route of routes) {
        expect(route.meta.ability, `${name(route)} declares its ability`).toBeDefined();
        expect(route.output, `${name(route)} declares its output`).toBeDefined();
        if (route.params.some((param) => param.name === "product"))
          expect(route.meta.product, `${name(route)} declares product access`).toBeDefined();
        if (withTarget.includes(route))
          expect(route.meta.example?.build, `${name(route)} declares how to build a valid request`).toBeDefined();
      }
    });

    it("finds the MCP endpoints among the routes, each serving an account (never public) and so in every key row", () => {
      const mcp = routes.filter((route) => route.meta.mcp);
      expect(mcp.map(name).sort()).toEqual([...(options.mcp ?? [])].sort());
      for (const route of mcp) {
        expect(keyRequired, `${name(route)} takes a key`).toContain(route);
        expect(withAbility, `${name(route)} declares its ability`).toContain(route);
      }
    });

    it("knows whose rows every read with lists shows: the account's (example.listed), the product's or everyone's", () => {
      const undeclared = [...reads, ...pages]
        .filter((read) => holdsRowLists(jsonTextSchema(read.output) ?? read.output))
        .filter((read) => !read.meta.example?.listed && !read.meta.listing);
      expect(undeclared.map((read) => read.procedure)).toEqual([]);
    });

    it.each(rows(keyRequired))("%s without a key: 401 missing_api_key", async (_, route) => {
      const response = await send(route, null);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String), error: "missing_api_key" });
    });

    it.each(rows(keyed))("%s with an unknown key: 401 invalid_api_key", async (_, route) => {
      const response = await send(route, "shelf_NotARealKeyAtAllNotARealKeyAtAll");
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_api_key");
    });

    it.each(rows(keyed))("%s with a revoked key: 401 invalid_api_key", async (_, route) => {
      const response = await send(route, fixture.keys.revoked);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_api_key");
    });

    it.each(rows(keyed))("%s with an expired key: 401 invalid_api_key", async (_, route) => {
      const response = await send(route, fixture.keys.expired);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_api_key");
    });

    it.each(rows(withAbility))(
      "%s with a key lacking its ability: 403 missing_api_key_ability, before any lookup",
      async (_, route) => {
        const key = fixture.lacking.get(route.meta.ability as AccountAbility) as string;
        for (const params of [{}, { ...missingParams(route), product: MISSING_ID }]) {
          const response = await send(route, key, params);
          expect(response.status).toBe(403);
          expect(response.body.error).toBe("missing_api_key_ability");
        }
      },
    );

    it.each(rows(withProduct))(
      "%s with a key scoped to another product: 403 product_api_key_scope_required",
      async (_, route) => {
        const response = await send(route, fixture.keys.scopedElsewhere);
        expect(response.status).toBe(403);
        expect(response.body.error).toBe("product_api_key_scope_required");
      },
    );

    it.each(rows(entitledOnly))(
      "%s for an account without the product: 403 product_entitlement_required",
      async (_, route) => {
        const response = await send(route, fixture.keys.unentitled);
        expect(response.status).toBe(403);
        expect(response.body.error).toBe("product_entitlement_required");
      },
    );

    it.each(rows(productKeyOnly))(
      "%s with an account-wide key: 403 product_api_key_scope_required (only the product's own keys)",
      async (_, route) => {
        const response = await send(route, fixture.keys.full);
        expect(response.status).toBe(403);
        expect(response.body.error).toBe("product_api_key_scope_required");
      },
    );

    // A product key names its product: a missing product is another scope (403), never a lookup.
    it.each(rows(withProduct.filter((route) => !productKeyOnly.includes(route))))(
      "%s for a missing product: 404",
      async (_, route) => {
        const response = await send(route, fixture.keys.full, { product: MISSING_ID });
        expect(response.status).toBe(404);
        expect(response.body.error).toBe("not_found");
      },
    );

    it.each(rows(lookedUp))("%s for a missing target: 404 with the route's code", async (_, route) => {
      const response = await send(route, fixture.keys.full, missingParams(route));
      expect(response.status).toBe(404);
      const codes = (["not_found", ...(route.meta.errors ?? [])] as DomainErrorCode[]).filter(
        (code) => domainErrors[code].status === 404,
      );
      expect(codes).toContain(response.body.error);
    });

    it.each(rows(accountTargets))(
      "%s for another account's target: the same answer as for a missing one",
      async (_, route) => {
        const foreign = await send(route, fixture.keys.neighbour);
        const missing = await send(route, fixture.keys.neighbour, missingParams(route));
        expect(missing.status).toBe(404);
        expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });
      },
    );

    it.each(rows(accountLists))("%s lists the caller's rows, never another account's", async (_, route) => {
      const response = await send(route, fixture.examples.get(route)?.key ?? fixture.keys.full);
      expect(successStatuses(route), response.text).toContain(response.status);
      expectOnlyOwnRows(route.procedure, response.body);
    });

    it.each(pageLists.map((page) => [page.procedure, page] as const))(
      "%s (account pages) lists the person's rows, never another account's",
      async (procedure) => {
        const call = procedure
          .split(".")
          .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], fixture.signedIn);
        expectOnlyOwnRows(
          procedure,
          await (call as (input?: unknown) => Promise<unknown>)(fixture.pageInputs.get(procedure)),
        );
      },
    );

    it.each(rows(productTargets))(
      "%s for another buyer of the same product: the same success (the target is the product's)",
      async (_, route) => {
        const response = await send(route, fixture.keys.neighbour);
        expect(successStatuses(route), response.text).toContain(response.status);
      },
    );

    it.each(rows(signedTargets))("%s with a forged token: 403, never a lookup", async (_, route) => {
      const response = await send(route, fixture.keys.full, missingParams(route));
      expect(response.status).toBe(403);
      expect(response.body.error).toMatch(/^download_link_/);
    });

    it.each(rows(routes))("%s with a full key: success, exactly in the documented shape", async (_, route) => {
      const response = await send(route, fixture.examples.get(route)?.key ?? fixture.keys.full);
      expect(successStatuses(route), response.text).toContain(response.status);
      const schema = jsonTextSchema(route.output) ?? (route.output as z.ZodType);
      if (route.kind === "json" && response.status !== 204 && response.status < 300) {
        expect(contractMismatch(schema, response.text)).toBeNull();
      }
    });
  });
}
