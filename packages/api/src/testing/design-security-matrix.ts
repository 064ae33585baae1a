import { schema } from "@shelf/db";
import { type DesignRole, designRoles } from "@shelf/db/enums";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDesignToken, revokeDesignToken } from "../auth/design-token-admin";
import type { Delivery } from "../delivery";
import { collectRoutes, type EdgeRoute } from "../edge/routes";
import type { RequestExample } from "../trpc";
import { createTestDelivery } from "./delivery";
import { createAccountWithKey } from "./factories";
import { createApiClient } from "./harness";
import { recordSecret } from "./secrets";
import { MISSING_ID, MISSING_TEXT, type SecurityMatrixOptions } from "./security-matrix";

type Token = { token: string; tokenId: number; name: string };

/**
 * The design host's counterpart of the account API's security matrix: every route against every way a design
 * credential can be wrong (none, unknown, revoked, expired, an account key, an OAuth token, a token lacking the
 * route's role), a success row, a missing-target row for each route naming something, and for a run's routes a row
 * for a token of another name. Rows come from the routes' own meta (`role`, `designExample`): a new route gets them
 * without anyone writing them.
 */
export function describeDesignSecurityMatrix(title: string, options: SecurityMatrixOptions) {
  let testDb: TestDatabase;
  let delivery: Delivery;
  let request: ReturnType<typeof createApiClient>;
  const tokens = new Map<string, Token>();

  const routes = collectRoutes(options.router);
  const withRole = routes.filter((route) => route.meta.ability !== "public");
  const publicRoutes = routes.filter((route) => route.meta.ability === "public");
  /** Routes naming something: with a role, and public ones (the gallery's screens and apps) alike. */
  const named = routes.filter((route) => route.params.length > 0);

  async function token(name: string, roles: DesignRole[]): Promise<Token> {
    const created = await createDesignToken(testDb.db, { name, roles }, "shelf");
    recordSecret(created.token);
    return { token: created.token, tokenId: created.record.id, name };
  }

  beforeAll(async () => {
    testDb = await createTestDatabase();
    delivery = await createTestDelivery();
    request = createApiClient(testDb.db, { edge: options.edge(testDb, delivery) });
    tokens.set("full", await token("matrix-agent", [...designRoles]));
    tokens.set("stranger", await token("another-agent", [...designRoles]));
    const revoked = await token("matrix-agent", [...designRoles]);
    await revokeDesignToken(testDb.db, revoked.tokenId);
    tokens.set("revoked", revoked);
    const expired = await token("matrix-agent", [...designRoles]);
    await testDb.db
      .update(schema.designTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.designTokens.id, expired.tokenId));
    tokens.set("expired", expired);
    for (const role of designRoles) {
      tokens.set(
        `without-${role}`,
        await token(
          "matrix-agent",
          designRoles.filter((held) => held !== role),
        ),
      );
    }
    // Each route's example is built when its row needs it: a success row may use up what it names (a run it submits).
  });
  afterAll(() => testDb.drop());

  async function build(route: EdgeRoute): Promise<RequestExample> {
    const full = tokens.get("full") as Token;
    const example = await route.meta.designExample?.build?.({
      db: testDb.db,
      agent: { tokenId: full.tokenId, name: full.name },
      delivery,
    });
    return example ?? {};
  }

  async function send(route: EdgeRoute, key: string | null, example: RequestExample, params = {}) {
    const values: Record<string, string | number> = { ...example.params, ...params };
    const path = route.path.replace(/\{(\w+)(\+?)\}/g, (_, name: string) =>
      encodeURIComponent(String(values[name] ?? MISSING_ID)),
    );
    const query = new URLSearchParams(example.query ?? {}).toString();
    const target = query ? `${path}?${query}` : path;
    if (example.body instanceof FormData) {
      const encoded = new Response(example.body);
      return request(target, {
        method: route.method,
        key,
        headers: { ...example.headers, "content-type": encoded.headers.get("content-type") as string },
        rawBody: new Uint8Array(await encoded.arrayBuffer()),
      });
    }
    return request(target, {
      method: route.method,
      key,
      headers: example.headers,
      body: route.method === "GET" ? undefined : (example.body ?? {}),
    });
  }

  const label = (route: EdgeRoute) => `${route.method} ${route.path}`;
  const missingParams = (route: EdgeRoute) =>
    Object.fromEntries(
      route.params.map((param) => [
        param.name,
        route.meta.designExample?.missing?.[param.name] ?? (param.name === "slug" ? MISSING_TEXT : MISSING_ID),
      ]),
    );

  describe(`design security matrix: ${title}`, () => {
    it("covers every route: each declares a role or is public, and each naming something has an example", () => {
      expect(withRole.length).toBeGreaterThan(0);
      expect(withRole.filter((route) => !route.meta.role).map(label)).toEqual([]);
      expect(routes.filter((route) => route.meta.role && route.meta.ability).map(label)).toEqual([]);
      const needExample = routes.filter((route) => route.params.length > 0 || route.method !== "GET");
      expect(needExample.filter((route) => !route.meta.designExample?.build).map(label)).toEqual([]);
    });

    it("finds the MCP endpoints among the routes, each taking a design token with a role (never public)", () => {
      const mcp = routes.filter((route) => route.meta.mcp);
      expect(mcp.map(label).sort()).toEqual([...(options.mcp ?? [])].sort());
      for (const route of mcp) expect(withRole, `${label(route)} takes a design token`).toContain(route);
    });

    it("answers 401 without a usable design token, before anything else", async () => {
      const accountKey = (await createAccountWithKey(testDb.db)).key;
      const refused = [
        "shelf_design_NotARealTokenNotARealTokenNotARealTo",
        tokens.get("revoked")?.token,
        tokens.get("expired")?.token,
        accountKey,
        "shelf_at_AnOAuthAccessTokenShapeAnOAuthAccessToken",
      ] as string[];
      for (const route of withRole) {
        const example = {};
        expect((await send(route, null, example)).body, label(route)).toMatchObject({ error: "missing_api_key" });
        for (const key of refused) {
          const answer = await send(route, key, example);
          expect({ status: answer.status, error: answer.body?.error }, `${label(route)} ${key.slice(0, 14)}`).toEqual({
            status: 401,
            error: "invalid_api_key",
          });
        }
      }
    });

    it("answers 403 naming the role a token lacks, before the target is looked up", async () => {
      for (const route of withRole) {
        const role = route.meta.role as DesignRole;
        const answer = await send(route, tokens.get(`without-${role}`)?.token ?? null, {}, missingParams(route));
        expect({ status: answer.status, error: answer.body?.error }, label(route)).toEqual({
          status: 403,
          error: "missing_design_role",
        });
        expect(answer.body.message, label(route)).toContain(role);
      }
    });

    it("answers the declared success to a token with the role, and public routes to anyone", async () => {
      for (const route of [...withRole, ...publicRoutes]) {
        const example = await build(route);
        const key = route.meta.ability === "public" ? null : (tokens.get("full") as Token).token;
        const answer = await send(route, key, example);
        const expected = [route.meta.successStatus ?? 200, route.meta.alternateSuccess?.status].filter(Boolean);
        expect(expected, `${label(route)}: ${answer.status} ${answer.text.slice(0, 300)}`).toContain(answer.status);
      }
    });

    it("answers 404 for a target that does not exist (public routes too), and for another agent's run", async () => {
      for (const route of named) {
        if (route.meta.designExample?.target === "created") continue;
        const example = await build(route);
        const full = route.meta.ability === "public" ? null : (tokens.get("full") as Token).token;
        const missing = await send(route, full, example, missingParams(route));
        expect({ status: missing.status, body: missing.text.slice(0, 200) }, label(route)).toMatchObject({
          status: 404,
        });
        if (route.meta.designExample?.target === "family") {
          const stranger = await send(route, (tokens.get("stranger") as Token).token, example);
          expect({ status: stranger.status, body: stranger.text.slice(0, 200) }, label(route)).toMatchObject({
            status: 404,
          });
        }
      }
    });
  });
}
