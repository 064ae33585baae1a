import { createHash, createHmac, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { handleFetch } from "@shelf/server/edge/fetch";
import type { Edge } from "@shelf/server/edge/pipeline";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../account-api";
import type { AccountServices } from "../context";
import { pruneExpired } from "../housekeeping";
import {
  createAccount,
  recordSecret,
  TEST_BASE_URL,
  TEST_OAUTH_SETTINGS,
  testAccountServices,
  testLog,
} from "../testing";
import { approveAuthorization, checkAuthorizationRequest } from "./authorize";
import { isNativeApp } from "./clients";
import { PARALLEL_REFRESH_LAG_SECONDS, REFRESH_REUSE_GRACE_SECONDS } from "./refresh";
import type { OAuthSettings } from "./settings";

/**
 * The authorization server's rules in process: registration checks, authorization request checks (what is shown
 * to the person, what is sent back), the token endpoint's refusals (PKCE, replayed codes, redirect URI, resource,
 * clients), revocation, and where its tokens are accepted. The whole flow with a real client is in the web tests.
 */

let testDb: TestDatabase;
let oauth: Edge;
let mcp: Edge;
let api: Edge;
const settings: OAuthSettings = TEST_OAUTH_SETTINGS;

/** The account host's services of this file's edges (made once: the shared test delivery). */
let services: AccountServices;

beforeAll(async () => {
  services = await testAccountServices();
  testDb = await createTestDatabase();
  const rateLimiter = createRateLimiter({ points: 1_000_000 });
  oauth = createAccountApiEdge({
    ...services,
    db: testDb.db,
    baseUrl: TEST_BASE_URL,
    log: testLog,
    rateLimiter,
    oauth: settings,
    routeLimits: { "oauth-register": 3 },
  });
  mcp = createAccountApiEdge({
    ...services,
    db: testDb.db,
    baseUrl: TEST_BASE_URL,
    rateLimiter,
    log: testLog,
  });
  api = createAccountApiEdge({
    ...services,
    db: testDb.db,
    baseUrl: TEST_BASE_URL,
    rateLimiter,
    log: testLog,
  });
});
afterAll(() => testDb.drop());

let addresses = 0;
function call(edge: Edge, path: string, init: RequestInit = {}, address = "192.0.2.1") {
  return handleFetch(edge, new Request(`${TEST_BASE_URL}${path}`, init), address).then(async (response) => {
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as any };
  });
}

function register(body: unknown) {
  addresses += 1;
  return call(
    oauth,
    "/oauth/register",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    `198.51.100.${addresses}`,
  );
}

/** A token request, to the test's authorization server unless another edge (or client address) is named. */
function token(fields: Record<string, string>, at: { edge?: Edge; address?: string } = {}) {
  return call(
    at.edge ?? oauth,
    "/oauth/token",
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    },
    at.address,
  );
}

/** A refresh token grant, sent by the client the grant was approved for. */
function refreshToken(grant: { clientId: string }, issued: string) {
  return token({ grant_type: "refresh_token", refresh_token: issued, client_id: grant.clientId });
}

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

const REDIRECT = "http://127.0.0.1:45678/callback";

async function newClient(redirect = REDIRECT): Promise<string> {
  const registered = await register({ client_name: "Test app", redirect_uris: [redirect] });
  expect(registered.status).toBe(201);
  return registered.body.client_id;
}

function authorizeQuery(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: settings.resource,
    state: "st-123",
    ...extra,
  });
}

/** Authorization requests naming redirect URIs the client did not register: shown as invalid, never redirected. */
async function expectRedirectsRefused(clientId: string, challenge: string, uris: string[]) {
  for (const uri of uris) {
    const outcome = await checkAuthorizationRequest(
      testDb.db,
      settings,
      authorizeQuery(clientId, challenge, { redirect_uri: uri }),
    );
    expect(outcome.kind, uri).toBe("invalid");
  }
}

/** The query without the parameters a case sets to "" (left out). */
function withoutEmpty(query: URLSearchParams): URLSearchParams {
  return new URLSearchParams([...query].filter(([, value]) => value !== ""));
}

/** An approved authorization (of a new client, unless one is named): the code and what the token request sends. */
async function approved(
  scope?: string,
  client?: string,
  options: { account?: { id: number }; chosen?: string[]; query?: Record<string, string> } = {},
) {
  const account = options.account ?? (await createAccount(testDb.db));
  const clientId = client ?? (await newClient());
  const { verifier, challenge } = pkce();
  const outcome = await checkAuthorizationRequest(
    testDb.db,
    settings,
    withoutEmpty(authorizeQuery(clientId, challenge, { ...(scope ? { scope } : {}), ...options.query })),
  );
  if (outcome.kind !== "consent") throw new Error(`expected consent, got ${JSON.stringify(outcome)}`);
  const location = new URL(
    await approveAuthorization(testDb.db, settings, account.id, outcome.request, options.chosen),
  );
  expect(location.searchParams.get("state")).toBe("st-123");
  expect(location.searchParams.get("iss")).toBe(TEST_BASE_URL);
  return { account, clientId, verifier, code: location.searchParams.get("code") as string };
}

/** The token request for an approved code; `change` replaces or adds fields (a wrong verifier, another URI). */
async function exchange(
  grant: { clientId: string; verifier: string; code: string },
  change: Record<string, string> = {},
  at: Parameters<typeof token>[1] = {},
) {
  const fields = {
    grant_type: "authorization_code",
    code: grant.code,
    client_id: grant.clientId,
    redirect_uri: REDIRECT,
    code_verifier: grant.verifier,
    resource: settings.resource,
    ...change,
  };
  const answer = await token(Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== "")), at);
  if (answer.status === 200) {
    recordSecret(answer.body.access_token);
    recordSecret(answer.body.refresh_token);
  }
  return answer;
}

function sha256(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** A refresh token grant request by the token's client. */
function refreshWith(clientId: string, refreshToken: string, scope?: string) {
  return token({
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
    ...(scope && { scope }),
  });
}

/** A new grant whose first refresh token has been rotated once: `first` is the pair its rotation gave. */
async function rotatedOnce() {
  const grant = await approved();
  const issued = await exchange(grant);
  const first = await refreshWith(grant.clientId, issued.body.refresh_token);
  expect(first.status).toBe(200);
  recordSecret(first.body.access_token);
  recordSecret(first.body.refresh_token);
  return { grant, issued, first };
}

/** Moves a spent refresh token's first use back to before its grace. */
function usedBeforeTheGrace(refreshToken: string) {
  return testDb.db.execute(
    sql`update oauth_tokens set used_at = used_at - make_interval(secs => ${REFRESH_REUSE_GRACE_SECONDS + 1})
      where token_hash = ${sha256(refreshToken)}`,
  );
}

/**
 * Resolves once this many statements of the test's database wait for a lock another connection holds, or once
 * `done` says the requests that were to wait have ended without waiting.
 */
async function lockWaiters(client: postgres.Sql, count: number, done: () => boolean): Promise<void> {
  while (!done()) {
    const [row] = await client<{ waiting: number }[]>`select count(*)::int as waiting from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`;
    if ((row?.waiting ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function grantRevoked(clientId: string): Promise<boolean | undefined> {
  const [row] = await testDb.db.execute<{ revoked: boolean }>(
    sql`select revoked_at is not null as revoked from oauth_grants where client_id = ${clientId}`,
  );
  return row?.revoked;
}

function mcpInitialize(bearer: string, edge = mcp, host = new URL(TEST_BASE_URL).host) {
  return call(edge, "/api/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${bearer}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      host,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
}

describe("one pipeline with the REST API", () => {
  it("answers with the REST answers' common headers, CORS for any origin, and no-store on credentials", async () => {
    const answer = await token({ grant_type: "refresh_token", refresh_token: "x", client_id: "shelfc_nobody" });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: "invalid_client", error_description: expect.any(String) });
    for (const name of ["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining"]) {
      expect(answer.headers.get(name), name).toBeTruthy();
    }
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    const preflight = await call(oauth, "/oauth/token", {
      method: "OPTIONS",
      headers: { origin: "https://inspector.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    const metadata = await call(oauth, "/.well-known/oauth-authorization-server");
    expect(metadata.headers.get("cache-control")).toBe("public, max-age=3600");
  });

  it("refuses a body over the limit with 413 in OAuth's terms, and a JSON token request as 400 invalid_request", async () => {
    const huge = await call(
      oauth,
      "/oauth/register",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: "x".repeat(2 * 1024 * 1024) }),
      },
      "198.51.100.251",
    );
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: "invalid_request", error_description: expect.any(String) });
    const json = await call(oauth, "/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "authorization_code" }),
    });
    // RFC 6749 5.2: a request in the wrong form is 400 invalid_request, not 415.
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({
      error: "invalid_request",
      error_description: "Send the body as application/x-www-form-urlencoded.",
    });
  });

  it("lists its endpoints in the account API's OpenAPI document, form bodies and OAuth errors included", async () => {
    const document = (await call(oauth, "/api/openapi.json")).body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        "/oauth/register",
        "/oauth/token",
        "/oauth/revoke",
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/mcp",
      ]),
    );
    const tokenOperation = document.paths["/oauth/token"].post;
    expect(Object.keys(tokenOperation.requestBody.content)).toEqual(["application/x-www-form-urlencoded"]);
    expect(tokenOperation.responses).toHaveProperty("401");
    expect(tokenOperation.responses).not.toHaveProperty("422");
    expect(tokenOperation.responses).not.toHaveProperty("415");
    expect(tokenOperation.security).toEqual([]);
  });
});

describe("registration", () => {
  it("registers a public client and answers RFC 7591's fields", async () => {
    const answer = await register({ client_name: "Editor", redirect_uris: ["https://app.example/cb", REDIRECT] });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      client_name: "Editor",
      redirect_uris: ["https://app.example/cb", REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    });
    expect(answer.body.client_id).toMatch(/^shelfc_/);
    expect(answer.body).not.toHaveProperty("client_secret");
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses client metadata nested deeper than 64 levels as invalid_client_metadata", async () => {
    const depth = 8000;
    const answer = await call(
      oauth,
      "/oauth/register",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"client_name":"Deep","redirect_uris":["${REDIRECT}"],"contacts":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      },
      "198.51.100.250",
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringContaining("64 levels"),
    });
  });

  it("refuses redirect URIs that are not https, loopback or a native app's scheme, and implicit clients", async () => {
    for (const uri of [
      "http://app.example/cb",
      "https://app.example/cb#frag",
      "javascript:alert(1)",
      "data:text/html,hi",
      "file:///etc/passwd",
      "myapp:/callback",
      "myapp://callback",
      "not a url",
    ]) {
      const answer = await register({ redirect_uris: [uri] });
      expect(answer.status, uri).toBe(400);
      expect(answer.body.error, uri).toBe("invalid_redirect_uri");
      expect(answer.body.error_description).toContain("redirect_uris");
    }
    const implicit = await register({ redirect_uris: [REDIRECT], response_types: ["token"] });
    expect(implicit.body.error).toBe("invalid_client_metadata");
    const nonsense = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "trust_me" });
    expect(nonsense.body.error).toBe("invalid_client_metadata");
    const none = await register({});
    expect(none.body.error).toBe("invalid_redirect_uri");
  });

  it("registers what MCP hosts send as public clients, and answers what was granted (RFC 7591 3.2.1)", async () => {
    const hosts = JSON.parse(await readFile(new URL("./fixtures/registrations.json", import.meta.url), "utf8"));
    for (const [host, body] of Object.entries(hosts as Record<string, Record<string, unknown>>)) {
      if (host.startsWith("$")) continue;
      const answer = await register(body);
      expect(answer.status, host).toBe(201);
      expect(answer.body, host).toMatchObject({
        redirect_uris: body.redirect_uris,
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      });
      expect(answer.body, host).not.toHaveProperty("client_secret");
    }
  });

  it("turns a request for a client secret into a public client, drops grants and scopes it lacks", async () => {
    for (const method of ["client_secret_post", "client_secret_basic", "private_key_jwt"]) {
      const answer = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: method });
      expect(answer.status, method).toBe(201);
      expect(answer.body.token_endpoint_auth_method).toBe("none");
    }
    const device = await register({
      redirect_uris: [REDIRECT],
      grant_types: ["urn:ietf:params:oauth:grant-type:device_code", "client_credentials"],
      scope: "offline_access claudeai mcp.read products.read",
    });
    expect(device.status).toBe(201);
    expect(device.body.grant_types).toEqual(["authorization_code"]);
    expect(device.body.scope).toBe("mcp.read products.read");
    const unknownOnly = await register({ redirect_uris: [REDIRECT], scope: "claudeai" });
    expect(unknownOnly.status).toBe(201);
    expect(unknownOnly.body).not.toHaveProperty("scope");
  });

  it("matches a native app's private-use redirect exactly, and sends the code there", async () => {
    const cursor = "cursor://anysphere.cursor-mcp/oauth/callback";
    const clientId = (await register({ client_name: "Cursor", redirect_uris: [cursor] })).body.client_id;
    const { challenge } = pkce();
    await expectRedirectsRefused(clientId, challenge, [
      `${cursor}/x`,
      "cursor://anysphere.cursor-mcp/oauth/callback?x=1",
      "cursor://evil.example/oauth/callback",
    ]);
    const outcome = await checkAuthorizationRequest(
      testDb.db,
      settings,
      authorizeQuery(clientId, challenge, { redirect_uri: cursor }),
    );
    if (outcome.kind !== "consent") throw new Error(`expected consent, got ${JSON.stringify(outcome)}`);
    expect(isNativeApp(outcome.request.client)).toBe(true);
    const account = await createAccount(testDb.db);
    const location = await approveAuthorization(testDb.db, settings, account.id, outcome.request);
    expect(location.startsWith(`${cursor}?code=`)).toBe(true);
  });

  it("limits registrations per address", async () => {
    const body = JSON.stringify({ redirect_uris: [REDIRECT] });
    const init = { method: "POST", headers: { "content-type": "application/json" }, body };
    const answers = [];
    for (let index = 0; index < 4; index += 1) answers.push(await call(oauth, "/oauth/register", init, "203.0.113.77"));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 429]);
  });
});

describe("rate limits as hosted connectors meet them (many people, a few addresses)", () => {
  /** An authorization server whose API limit is 5 a window (long enough that no test sees it end). */
  const limitedEdge = () =>
    createAccountApiEdge({
      ...services,
      db: testDb.db,
      baseUrl: TEST_BASE_URL,
      log: testLog,
      rateLimiter: createRateLimiter({ points: 5, windowSeconds: 3600 }),
      oauth: settings,
    });

  it("serves the static metadata to one address beyond the limit, saying nothing of a budget", async () => {
    const edge = limitedEdge();
    for (let index = 0; index < 8; index += 1) {
      for (const path of [
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource/api/mcp",
        "/.well-known/oauth-protected-resource",
      ]) {
        const answer = await call(edge, path, {}, "198.51.100.200");
        expect(answer.status, `${path} #${index}`).toBe(200);
        expect(answer.headers.get("x-ratelimit-remaining"), path).toBeNull();
      }
    }
    // The token endpoint from the same address is not the worse for it.
    const refused = await token(
      { grant_type: "refresh_token", client_id: "shelfc_nobody" },
      { edge, address: "198.51.100.200" },
    );
    expect(refused.body.error).toBe("invalid_client");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("counts registrations against their own per-address limit only, not the API's smaller one", async () => {
    const edge = limitedEdge();
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Hosted connector", redirect_uris: [REDIRECT] }),
    };
    const statuses = [];
    for (let index = 0; index < 8; index += 1) {
      statuses.push((await call(edge, "/oauth/register", init, "198.51.100.204")).status);
    }
    expect(statuses).toEqual(Array(8).fill(201));
  });

  it("counts token requests per connected app, not per address; what names no app counts against the address", async () => {
    const edge = limitedEdge();
    const address = "198.51.100.201";
    // Eight people's apps exchange their codes and refresh from one address: more than the limit, each served.
    for (let person = 0; person < 8; person += 1) {
      const grant = await approved();
      const issued = await exchange(grant, {}, { edge, address });
      expect(issued.status, `person ${person}`).toBe(200);
      const refreshed = await exchange(
        grant,
        { grant_type: "refresh_token", refresh_token: issued.body.refresh_token, code: "", code_verifier: "" },
        { edge, address },
      );
      expect(refreshed.status, `person ${person}`).toBe(200);
      expect(refreshed.headers.get("x-ratelimit-remaining")).toBe("3");
    }
    // One app's own budget still ends: its code and four refreshes, then 429 slow_down.
    const grant = await approved();
    let answer = await exchange(grant, {}, { edge, address: "198.51.100.202" });
    const statuses = [answer.status];
    for (let refresh = 0; refresh < 5; refresh += 1) {
      const fields = {
        grant_type: "refresh_token",
        refresh_token: answer.body.refresh_token,
        code: "",
        code_verifier: "",
      };
      answer = await exchange(grant, fields, { edge, address: "198.51.100.203" });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answer.body.error).toBe("slow_down");
    // Unknown clients and tokens name no app: the address's budget, used up after five.
    const strangers = [];
    for (let index = 0; index < 6; index += 1) {
      const fields = {
        grant_type: "refresh_token",
        refresh_token: `shelf_rt_${"x".repeat(43)}`,
        client_id: grant.clientId,
      };
      strangers.push((await token(fields, { edge, address })).status);
    }
    expect(strangers).toEqual([400, 400, 400, 400, 400, 429]);
  });

  it("counts every token request against a per-address ceiling before its body is read, refusals included", async () => {
    const edge = createAccountApiEdge({
      ...services,
      db: testDb.db,
      baseUrl: TEST_BASE_URL,
      log: testLog,
      rateLimiter: createRateLimiter({ points: 1_000_000 }),
      oauth: settings,
      routeLimits: { "oauth-token": 3 },
    });
    const address = "198.51.100.205";
    const post = (headers: Record<string, string>, body: string) =>
      call(edge, "/oauth/token", { method: "POST", headers, body }, address);
    const statuses = [
      (await post({ "content-type": "text/plain" }, "grant_type=refresh_token")).status,
      (await post({ "content-type": "application/x-www-form-urlencoded" }, "x".repeat(2 * 1024 * 1024))).status,
      (
        await post(
          { "content-type": "application/x-www-form-urlencoded" },
          "grant_type=refresh_token&grant_type=authorization_code",
        )
      ).status,
    ];
    // The wrong type, too large, a field given twice: each refused before any grant is looked at, each counted.
    expect(statuses).toEqual([400, 413, 400]);
    const fourth = await exchange(await approved(), {}, { edge, address });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toBe("slow_down");
    // Another address is not the worse for it.
    expect((await exchange(await approved(), {}, { edge, address: "198.51.100.206" })).status).toBe(200);
  });

  it("counts spent, expired and revoked codes and refresh tokens against the address, whoever's grant they name", async () => {
    // Four grants whose code or refresh token can no longer be answered, made without a limit.
    const spent = await approved();
    expect((await exchange(spent)).status).toBe(200);
    const expired = await approved();
    await testDb.db.execute(
      sql`update oauth_codes set expires_at = now() - interval '1 second' where code_hash = ${sha256(expired.code)}`,
    );
    const disconnected = await approved();
    const disconnectedTokens = await exchange(disconnected);
    await call(oauth, "/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: disconnectedTokens.body.refresh_token, client_id: disconnected.clientId }),
    });
    const { grant: stale, issued: staleTokens } = await rotatedOnce();
    await usedBeforeTheGrace(staleTokens.body.refresh_token);
    const asRefresh = (clientId: string, refreshToken: string) => ({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: clientId,
      code: "",
      code_verifier: "",
    });
    // One address cycles through them: one budget, its own, used up after five.
    const edge = limitedEdge();
    const address = "198.51.100.207";
    const statuses = [];
    for (const [grant, change] of [
      [spent, {}],
      [expired, {}],
      [disconnected, asRefresh(disconnected.clientId, disconnectedTokens.body.refresh_token)],
      [stale, asRefresh(stale.clientId, staleTokens.body.refresh_token)],
      [spent, {}],
      [expired, {}],
    ] as const) {
      statuses.push((await exchange(grant, change, { edge, address })).status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });

  it("keeps a connected app's budget from an old code of its grant that someone else presents", async () => {
    const edge = limitedEdge();
    const person = "198.51.100.208";
    const grant = await approved();
    const issued = await exchange(grant, {}, { edge, address: person });
    expect(issued.status).toBe(200);
    // An earlier consent's code, exchanged long ago, read from a log by someone else.
    const old = await approved(undefined, grant.clientId, { account: grant.account });
    expect((await exchange(old)).status).toBe(200);
    const leaked = [];
    for (let index = 0; index < 5; index += 1) {
      leaked.push((await exchange(old, {}, { edge, address: "198.51.100.209" })).status);
    }
    expect(leaked).toEqual([400, 400, 400, 400, 400]);
    const refreshed = await exchange(
      grant,
      { grant_type: "refresh_token", refresh_token: issued.body.refresh_token, code: "", code_verifier: "" },
      { edge, address: person },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get("x-ratelimit-remaining")).toBe("3");
  });
});

describe("a server on a loopback address, given to a host under another loopback name", () => {
  const base = "http://localhost:3999";
  const loopback: OAuthSettings = { ...TEST_OAUTH_SETTINGS, issuer: base, resource: `${base}/api/mcp` };
  const edge = () =>
    createAccountApiEdge({
      ...services,
      db: testDb.db,
      baseUrl: base,
      log: testLog,
      rateLimiter: createRateLimiter({ points: 1_000_000 }),
      oauth: loopback,
    });

  it("names the resource and its metadata as the request's Host did (RFC 9728 3.3), and only a loopback name of it", async () => {
    const server = edge();
    const at = (path: string, host: string, init: RequestInit = {}) =>
      handleFetch(server, new Request(`${base}${path}`, { ...init, headers: { ...init.headers, host } }));
    for (const [host, origin] of [
      ["127.0.0.1:3999", "http://127.0.0.1:3999"],
      ["[::1]:3999", "http://[::1]:3999"],
      ["localhost:3999", base],
      ["127.0.0.1:4000", base],
      ["shelf.example", base],
      ["user@127.0.0.1:3999", base],
    ]) {
      const metadata = await (await at("/.well-known/oauth-protected-resource/api/mcp", host as string)).json();
      expect(metadata.resource, host).toBe(`${origin}/api/mcp`);
      expect(metadata.authorization_servers, host).toEqual([base]);
    }
    const challenge = await at("/api/mcp", "127.0.0.1:3999", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toContain(
      'resource_metadata="http://127.0.0.1:3999/.well-known/oauth-protected-resource/api/mcp"',
    );
  });

  it("issues tokens for the resource under any of its loopback names, and refuses another port", async () => {
    const clientId = await newClient();
    const { verifier, challenge } = pkce();
    const asked = "http://127.0.0.1:3999/api/mcp";
    const query = authorizeQuery(clientId, challenge, { resource: asked });
    const outcome = await checkAuthorizationRequest(testDb.db, loopback, query);
    if (outcome.kind !== "consent") throw new Error(`expected consent, got ${JSON.stringify(outcome)}`);
    const account = await createAccount(testDb.db);
    const code = new URL(await approveAuthorization(testDb.db, loopback, account.id, outcome.request)).searchParams.get(
      "code",
    ) as string;
    const server = edge();
    const issued = await token(
      {
        grant_type: "authorization_code",
        code,
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        resource: asked,
      },
      { edge: server },
    );
    expect(issued.status).toBe(200);
    recordSecret(issued.body.access_token);
    recordSecret(issued.body.refresh_token);
    for (const host of ["127.0.0.1:3999", "localhost:3999"]) {
      const opened = await mcpInitialize(issued.body.access_token, server, host);
      expect(opened.status, host).toBe(200);
    }
    const refreshed = await token(
      {
        grant_type: "refresh_token",
        refresh_token: issued.body.refresh_token,
        client_id: clientId,
        resource: "http://[::1]:3999/api/mcp",
      },
      { edge: server },
    );
    expect(refreshed.status).toBe(200);
    recordSecret(refreshed.body.access_token);
    recordSecret(refreshed.body.refresh_token);
    const elsewhere = await checkAuthorizationRequest(
      testDb.db,
      loopback,
      authorizeQuery(clientId, challenge, { resource: "http://127.0.0.1:4000/api/mcp" }),
    );
    expect(elsewhere.kind === "redirect" && new URL(elsewhere.location).searchParams.get("error")).toBe(
      "invalid_target",
    );
  });
});

describe("authorization requests", () => {
  it("shows the person, and sends nothing, when the client or its redirect URI is not sure", async () => {
    const clientId = await newClient();
    const { challenge } = pkce();
    const unknown = await checkAuthorizationRequest(testDb.db, settings, authorizeQuery("shelfc_nobody", challenge));
    expect(unknown.kind).toBe("invalid");
    const elsewhere = await checkAuthorizationRequest(
      testDb.db,
      settings,
      authorizeQuery(clientId, challenge, { redirect_uri: "http://127.0.0.1:45678/other" }),
    );
    expect(elsewhere).toMatchObject({ kind: "invalid", message: expect.stringContaining("redirect_uri") });
    const twice = authorizeQuery(clientId, challenge);
    twice.append("scope", "mcp.read");
    twice.append("scope", "orders.read");
    expect((await checkAuthorizationRequest(testDb.db, settings, twice)).kind).toBe("invalid");
  });

  it("sends errors back with state and iss: no PKCE, plain PKCE, another resource, another response type", async () => {
    const clientId = await newClient();
    const { challenge } = pkce();
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge: "" }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ resource: "https://elsewhere.example/api/mcp" }, "invalid_target"],
      [{ response_type: "token" }, "unsupported_response_type"],
    ];
    for (const [change, error] of cases) {
      const query = authorizeQuery(clientId, challenge, change);
      for (const [name, value] of Object.entries(change)) if (value === "") query.delete(name);
      const outcome = await checkAuthorizationRequest(testDb.db, settings, query);
      expect(outcome.kind, JSON.stringify(change)).toBe("redirect");
      const location = new URL((outcome as { location: string }).location);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get("error"), JSON.stringify(change)).toBe(error);
      expect(location.searchParams.get("state")).toBe("st-123");
      expect(location.searchParams.get("iss")).toBe(TEST_BASE_URL);
    }
  });

  it("asks for mcp.read and products.read by default, and always includes mcp.read", async () => {
    const clientId = await newClient();
    const { challenge } = pkce();
    const plain = await checkAuthorizationRequest(testDb.db, settings, authorizeQuery(clientId, challenge));
    expect(plain.kind === "consent" && plain.request.scopes).toEqual(["products.read", "mcp.read"]);
    const orders = await checkAuthorizationRequest(
      testDb.db,
      settings,
      authorizeQuery(clientId, challenge, { scope: "orders.read" }),
    );
    expect(orders.kind === "consent" && orders.request.scopes).toEqual(["orders.read", "mcp.read"]);
    const offline = await checkAuthorizationRequest(
      testDb.db,
      settings,
      authorizeQuery(clientId, challenge, { scope: "products.read offline_access" }),
    );
    expect(offline.kind === "consent" && offline.request.scopes).toEqual(["products.read", "mcp.read"]);
  });

  it("drops scopes that are not abilities, as registration does, and asks for the default when none is left", async () => {
    const clientId = await newClient();
    const { challenge } = pkce();
    const scopesOf = async (scope: string) => {
      const outcome = await checkAuthorizationRequest(
        testDb.db,
        settings,
        authorizeQuery(clientId, challenge, { scope }),
      );
      expect(outcome.kind, scope).toBe("consent");
      return outcome.kind === "consent" ? outcome.request.scopes : [];
    };
    // What Claude's web connector, generic hosts and OpenID clients send (RFC 6749 3.3 lets the server ignore them).
    for (const scope of ["claudeai", "read write", "openid profile email", "offline_access", "  "]) {
      expect(await scopesOf(scope), scope).toEqual(["products.read", "mcp.read"]);
    }
    expect(await scopesOf("orders.read admin.everything claudeai")).toEqual(["orders.read", "mcp.read"]);
  });
});

describe("step-up and what the person chooses", () => {
  it("takes the one resource when the authorization and token requests leave it out", async () => {
    const grant = await approved(undefined, undefined, { query: { resource: "" } });
    const issued = await exchange(grant, { resource: "" });
    expect(issued.status).toBe(200);
    expect((await mcpInitialize(issued.body.access_token)).status).toBe(200);
  });

  it("adds a new consent's scopes to what the app already holds, so its earlier tools keep working", async () => {
    const first = await approved("mcp.read products.read");
    const before = await exchange(first);
    expect(before.body.scope).toBe("products.read mcp.read");
    // The app met a 403 for device.entitlements and asks for the challenge's scope: the person approves again.
    const again = await approved("device.entitlements", first.clientId, { account: first.account });
    const after = await exchange(again);
    expect(after.body.scope).toBe("products.read mcp.read device.entitlements");
    const opened = await mcpInitialize(after.body.access_token);
    const list = await call(mcp, "/api/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${after.body.access_token}`,
        "mcp-session-id": opened.headers.get("mcp-session-id") as string,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        host: new URL(TEST_BASE_URL).host,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "library_get", arguments: {} },
      }),
    });
    expect(list.status).toBe(200);
    expect(list.body.result?.isError ?? false).toBe(false);
    const [grant] = await testDb.db.execute<{ scopes: string[] }>(
      sql`select scopes from oauth_grants where client_id = ${first.clientId} and revoked_at is null`,
    );
    expect([...(grant?.scopes ?? [])].sort()).toEqual(["device.entitlements", "mcp.read", "products.read"]);
  });

  it("grants only what the person left ticked, and always mcp.read", async () => {
    const grant = await approved("orders.read subscriptions.read products.read", undefined, {
      chosen: ["orders.read", "support.report"],
    });
    const issued = await exchange(grant);
    // support.report was never asked for: unticking cannot add it.
    expect(issued.body.scope).toBe("orders.read mcp.read");
  });
});

describe("token endpoint", () => {
  it("exchanges a code once, with its verifier; a replay revokes the tokens it issued", async () => {
    const grant = await approved();
    const first = await exchange(grant);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "products.read mcp.read" });
    expect((await mcpInitialize(first.body.access_token)).status).toBe(200);

    const replay = await exchange(grant);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await mcpInitialize(first.body.access_token)).status).toBe(401);
    const refresh = await token({
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: grant.clientId,
    });
    expect(refresh.body.error).toBe("invalid_grant");
  });

  it("lets a loopback redirect name another port (RFC 8252), and nothing else of it vary", async () => {
    const account = await createAccount(testDb.db);
    const clientId = await newClient();
    const { verifier, challenge } = pkce();
    const otherPort = "http://127.0.0.1:51234/callback";
    const outcome = await checkAuthorizationRequest(
      testDb.db,
      settings,
      authorizeQuery(clientId, challenge, { redirect_uri: otherPort }),
    );
    if (outcome.kind !== "consent") throw new Error(`expected consent, got ${JSON.stringify(outcome)}`);
    expect(outcome.request.redirectUri).toBe(otherPort);
    const location = new URL(await approveAuthorization(testDb.db, settings, account.id, outcome.request));
    expect(location.origin + location.pathname).toBe(otherPort);
    const code = location.searchParams.get("code") as string;
    expect((await exchange({ clientId, verifier, code }, { redirect_uri: otherPort })).status).toBe(200);

    await expectRedirectsRefused(clientId, challenge, [
      "http://localhost:51234/callback",
      "http://127.0.0.1:51234/callback/",
      "http://127.0.0.1:51234/callback?next=1",
      "http://127.0.0.1:51234/Callback",
      "http://127.0.0.1:51234/x/../callback",
      "https://127.0.0.1:51234/callback",
    ]);
    // An https redirect is matched exactly, port included.
    const hosted = await newClient("https://app.example:8443/cb");
    const elsewhere = await checkAuthorizationRequest(
      testDb.db,
      settings,
      authorizeQuery(hosted, challenge, { redirect_uri: "https://app.example:9443/cb" }),
    );
    expect(elsewhere.kind).toBe("invalid");
  });

  it("refuses a wrong verifier, redirect URI, resource or client, and spends the code", async () => {
    const changes: Record<string, string>[] = [
      { code_verifier: randomBytes(32).toString("base64url") },
      { redirect_uri: "http://127.0.0.1:45678/other" },
      { resource: "https://elsewhere.example/api/mcp" },
      { client_id: await newClient() },
    ];
    for (const change of changes) {
      const grant = await approved();
      const answer = await exchange(grant, change);
      expect(answer.status, JSON.stringify(change)).toBe(400);
      expect(["invalid_grant", "invalid_target"]).toContain(answer.body.error);
      expect(answer.body.error_description).toBeTruthy();
      expect((await exchange(grant)).status, "the code is spent").toBe(400);
    }
  });

  it("answers a client_id it does not know with 401 invalid_client, at the token and revocation endpoints (RFC 6749 5.2)", async () => {
    const grant = await approved();
    const stranger = await exchange(grant, { client_id: "shelfc_nobody_registered_this" });
    expect(stranger.status).toBe(401);
    expect(stranger.body).toMatchObject({
      error: "invalid_client",
      error_description: expect.stringContaining("client_id"),
    });
    const refresh = await token({
      grant_type: "refresh_token",
      refresh_token: "shelf_rt_x",
      client_id: "shelfc_nobody",
    });
    expect({ status: refresh.status, error: refresh.body.error }).toEqual({ status: 401, error: "invalid_client" });
    const revoked = await call(oauth, "/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: "shelf_at_x", client_id: "shelfc_nobody" }),
    });
    expect({ status: revoked.status, error: revoked.body.error }).toEqual({ status: 401, error: "invalid_client" });
    // The code was never looked at: its own client still gets its tokens.
    expect((await exchange(grant)).status).toBe(200);
  });

  it("refuses a code past its five minutes", async () => {
    const grant = await approved();
    await testDb.db.execute(sql`update oauth_codes set expires_at = now() - interval '1 second'`);
    const answer = await exchange(grant);
    expect(answer.body).toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringContaining("expired"),
    });
  });

  it("answers malformed token requests in OAuth's terms", async () => {
    expect((await token({ grant_type: "password", client_id: "x", username: "a", password: "b" })).body.error).toBe(
      "unsupported_grant_type",
    );
    expect((await token({ grant_type: "authorization_code" })).body.error).toBe("invalid_client");
    const json = await call(oauth, "/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "authorization_code" }),
    });
    expect(json.body.error).toBe("invalid_request");
    const twice = await call(oauth, "/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=authorization_code&code=a&code=b&client_id=x",
    });
    expect(twice.body).toMatchObject({ error: "invalid_request", error_description: expect.stringContaining("code") });
  });

  it("narrows scopes on refresh but never widens them", async () => {
    const grant = await approved("orders.read products.read");
    const issued = await exchange(grant);
    const narrowed = await refreshWith(grant.clientId, issued.body.refresh_token, "mcp.read");
    expect(narrowed.body.scope).toBe("mcp.read");
    recordSecret(narrowed.body.access_token);
    recordSecret(narrowed.body.refresh_token);
    const widened = await refreshWith(grant.clientId, narrowed.body.refresh_token, "mcp.read subscriptions.read");
    expect(widened.body.error).toBe("invalid_scope");
  });
});

describe("where tokens work", () => {
  it("opens only /api/mcp, only for its resource; the REST API refuses it as an unknown key", async () => {
    const issued = await exchange(await approved());
    const library = await call(api, "/api/library", {
      headers: { authorization: `Bearer ${issued.body.access_token}` },
    });
    expect(library.status).toBe(401);
    expect(library.body.error).toBe("invalid_api_key");

    // The same token at an MCP endpoint of another base URL (another resource).
    const elsewhere = createAccountApiEdge({
      ...services,
      db: testDb.db,
      baseUrl: "http://other.test",
      rateLimiter: createRateLimiter({ points: 1000 }),
      log: testLog,
    });
    const refused = await handleFetch(
      elsewhere,
      new Request("http://other.test/api/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${issued.body.access_token}`,
          host: "other.test",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
      }),
    );
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("revokes an access token alone, and a refresh token with its whole grant (RFC 7009)", async () => {
    const grant = await approved();
    const issued = await exchange(grant);
    const revoke = (fields: Record<string, string>) =>
      call(oauth, "/oauth/revoke", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
      });
    expect((await revoke({ token: "shelf_at_unknown", client_id: grant.clientId })).status).toBe(200);
    // Another client cannot revoke it.
    await revoke({ token: issued.body.access_token, client_id: await newClient() });
    expect((await mcpInitialize(issued.body.access_token)).status).toBe(200);
    expect((await revoke({ token: issued.body.access_token, client_id: grant.clientId })).status).toBe(200);
    expect((await mcpInitialize(issued.body.access_token)).status).toBe(401);

    const refreshed = await refreshWith(grant.clientId, issued.body.refresh_token);
    recordSecret(refreshed.body.access_token);
    recordSecret(refreshed.body.refresh_token);
    expect((await mcpInitialize(refreshed.body.access_token)).status).toBe(200);
    await revoke({ token: refreshed.body.refresh_token, client_id: grant.clientId });
    expect((await mcpInitialize(refreshed.body.access_token)).status).toBe(401);
    expect(await grantRevoked(grant.clientId)).toBe(true);
  });

  it("keeps an MCP session across the token refreshes of the same connected app", async () => {
    const grant = await approved();
    const issued = await exchange(grant);
    const opened = await mcpInitialize(issued.body.access_token);
    const sessionId = opened.headers.get("mcp-session-id") as string;
    const refreshed = await refreshWith(grant.clientId, issued.body.refresh_token);
    recordSecret(refreshed.body.access_token);
    recordSecret(refreshed.body.refresh_token);
    const list = (bearer: string) =>
      call(mcp, "/api/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${bearer}`,
          "mcp-session-id": sessionId,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          host: new URL(TEST_BASE_URL).host,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
    expect((await list(refreshed.body.access_token)).status).toBe(200);
    // Another app (another account's) does not get into it.
    const other = await exchange(await approved());
    expect((await list(other.body.access_token)).status).toBe(404);
    // Nor does the same app connected by another account.
    const neighbour = await exchange(await approved(undefined, grant.clientId));
    expect((await list(neighbour.body.access_token)).status).toBe(404);
  });

  it("answers refreshes racing with one refresh token with one successor pair, never a fork of the grant", async () => {
    const grant = await approved();
    const issued = await exchange(grant);
    const refresh = () => refreshToken(grant, issued.body.refresh_token);
    // The token's row is held from another connection until all five requests wait on it: they are certain to race.
    const holder = postgres(testDb.url, { max: 2, onnotice: () => {} });
    let racing: Promise<Awaited<ReturnType<typeof refresh>>[]> | undefined;
    try {
      await holder.begin(async (tx) => {
        await tx`select id from oauth_tokens where token_hash = ${sha256(issued.body.refresh_token)} for update`;
        let ended = false;
        racing = Promise.all(Array.from({ length: 5 }, refresh)).finally(() => {
          ended = true;
        });
        await lockWaiters(holder, 5, () => ended);
      });
    } finally {
      await holder.end();
    }
    const answers = await (racing as NonNullable<typeof racing>);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    recordSecret(answers[0]?.body.access_token);
    recordSecret(answers[0]?.body.refresh_token);
    expect(new Set(answers.map((answer) => answer.body.access_token)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.body.refresh_token)).size).toBe(1);
    expect(answers.map((answer) => answer.body.scope)).toEqual(Array(5).fill("products.read mcp.read"));
    // One chain: a single live refresh token under the grant, the successor all five hold.
    const live = await testDb.db.execute<{ count: number }>(
      sql`select count(*)::int as count from oauth_tokens t join oauth_grants g on g.id = t.grant_id
        where g.client_id = ${grant.clientId} and t.kind = 'refresh' and t.used_at is null and t.revoked_at is null`,
    );
    expect(live[0]?.count).toBe(1);
    expect((await mcpInitialize(answers[0]?.body.access_token)).status).toBe(200);
    // Another client presenting it is refused, and changes nothing.
    const stranger = await token({
      grant_type: "refresh_token",
      refresh_token: issued.body.refresh_token,
      client_id: await newClient(),
    });
    expect(stranger.body.error).toBe("invalid_grant");
    expect((await mcpInitialize(answers[0]?.body.access_token)).status).toBe(200);
  });

  it("revokes the grant on reuse within the grace once the host has used the new access token", async () => {
    const grant = await approved();
    const issued = await exchange(grant);
    const refresh = (issuedToken: string) => refreshToken(grant, issuedToken);
    const first = await refresh(issued.body.refresh_token);
    recordSecret(first.body.access_token);
    recordSecret(first.body.refresh_token);
    // Before the host uses it, a reuse is one of its parallel refreshes: the same pair, with what is left of its hour.
    const again = await refresh(issued.body.refresh_token);
    expect(again.body).toMatchObject({
      access_token: first.body.access_token,
      refresh_token: first.body.refresh_token,
    });
    expect(again.body.expires_in).toBeLessThanOrEqual(3600);
    expect(again.body.expires_in).toBeGreaterThan(3600 - REFRESH_REUSE_GRACE_SECONDS - 5);
    // Moments after the host's first call with the new access token, its other call's refresh may still arrive.
    expect((await mcpInitialize(first.body.access_token)).status).toBe(200);
    const trailing = await refresh(issued.body.refresh_token);
    expect(trailing.body.access_token).toBe(first.body.access_token);
    // Past that, a reuse is a copy in other hands.
    await testDb.db.execute(
      sql`update oauth_tokens set used_at = used_at - make_interval(secs => ${PARALLEL_REFRESH_LAG_SECONDS + 1})
        where token_hash = ${sha256(first.body.access_token)}`,
    );
    const replay = await refresh(issued.body.refresh_token);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await mcpInitialize(first.body.access_token)).status).toBe(401);
    expect((await refresh(first.body.refresh_token)).body.error).toBe("invalid_grant");
    expect(await grantRevoked(grant.clientId)).toBe(true);
  });

  it("revokes the grant on reuse after the grace", async () => {
    const grant = await approved();
    const issued = await exchange(grant);
    const refresh = () => refreshToken(grant, issued.body.refresh_token);
    const first = await refresh();
    expect(first.status).toBe(200);
    recordSecret(first.body.access_token);
    recordSecret(first.body.refresh_token);
    await usedBeforeTheGrace(issued.body.refresh_token);
    const late = await refresh();
    expect(late.body.error).toBe("invalid_grant");
    expect((await mcpInitialize(first.body.access_token)).status).toBe(401);
  });

  it("revokes the grant on reuse within the grace once the host has used the new refresh token", async () => {
    const grant = await approved();
    const issued = await exchange(grant);
    const refresh = (issuedToken: string) => refreshToken(grant, issuedToken);
    const first = await refresh(issued.body.refresh_token);
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    recordSecret(second.body.access_token);
    recordSecret(second.body.refresh_token);
    const replay = await refresh(issued.body.refresh_token);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await mcpInitialize(second.body.access_token)).status).toBe(401);
  });
});

describe("what a copy of the database, an old token or a slow reuse cannot do", () => {
  it("cannot work out the successor of a spent refresh token from its row and the token: the server's secret is in it", async () => {
    const { grant, issued, first } = await rotatedOnce();
    const [spent] = await testDb.sql<{ successor_seed: string }[]>`select successor_seed from oauth_tokens
      where token_hash = ${sha256(issued.body.refresh_token)}`;
    // The successor as a seed kept in the database and the old token alone would give it.
    const guess = (kind: string) =>
      createHmac("sha256", spent?.successor_seed as string)
        .update(`${kind}:${issued.body.refresh_token}`)
        .digest("base64url");
    const guessed = { access: `shelf_at_${guess("access")}`, refresh: `shelf_rt_${guess("refresh")}` };
    recordSecret(guessed.access);
    recordSecret(guessed.refresh);
    expect(guessed.refresh).not.toBe(first.body.refresh_token);
    expect((await mcpInitialize(guessed.access)).status).toBe(401);
    expect((await refreshWith(grant.clientId, guessed.refresh)).body.error).toBe("invalid_grant");
    // The real successor is untouched by the attempt.
    expect((await mcpInitialize(first.body.access_token)).status).toBe(200);
  });

  it("forgets a spent refresh token's seed once its grace is over, and keeps it within", async () => {
    const { grant, issued, first } = await rotatedOnce();
    const second = await refreshWith(grant.clientId, first.body.refresh_token);
    expect(second.status).toBe(200);
    recordSecret(second.body.access_token);
    recordSecret(second.body.refresh_token);
    await usedBeforeTheGrace(issued.body.refresh_token);
    await pruneExpired(testDb.db);
    const seeds = await testDb.sql<{ token_hash: string; seeded: boolean }[]>`select token_hash,
      successor_seed is not null as seeded from oauth_tokens
      where token_hash in (${sha256(issued.body.refresh_token)}, ${sha256(first.body.refresh_token)})`;
    expect(Object.fromEntries(seeds.map((row) => [row.token_hash, row.seeded]))).toEqual({
      [sha256(issued.body.refresh_token)]: false,
      [sha256(first.body.refresh_token)]: true,
    });
    // Within its grace the host's parallel refresh still gets the pair.
    expect((await refreshWith(grant.clientId, first.body.refresh_token)).body.refresh_token).toBe(
      second.body.refresh_token,
    );
  });

  /**
   * The answer to a reuse of `refreshToken` sent while another connection's transaction holds what `hold` locked: it
   * commits once the reuse waits (or has ended without waiting), after `meanwhile`.
   */
  async function reuseHeldBy(
    clientId: string,
    refreshToken: string,
    hold: (tx: postgres.TransactionSql) => Promise<unknown>,
    meanwhile: (tx: postgres.TransactionSql) => Promise<unknown> = async () => {},
  ) {
    const holder = postgres(testDb.url, { max: 2, onnotice: () => {} });
    let reuse: ReturnType<typeof refreshWith> | undefined;
    try {
      await holder.begin(async (tx) => {
        await hold(tx);
        let ended = false;
        reuse = refreshWith(clientId, refreshToken).finally(() => {
          ended = true;
        });
        await lockWaiters(holder, 1, () => ended);
        await meanwhile(tx);
      });
    } finally {
      await holder.end();
    }
    return (await reuse) as Awaited<ReturnType<typeof refreshWith>>;
  }

  async function grantRevoked(clientId: string): Promise<boolean> {
    const [row] = await testDb.sql<{ revoked: boolean }[]>`select revoked_at is not null as revoked
      from oauth_grants where client_id = ${clientId}`;
    return row?.revoked ?? false;
  }

  it("judges the grace by the clock when a reuse waited on the token's row, not by when its transaction began", async () => {
    const { grant, issued } = await rotatedOnce();
    const spent = sha256(issued.body.refresh_token);
    const answer = await reuseHeldBy(
      grant.clientId,
      issued.body.refresh_token,
      (tx) => tx`select id from oauth_tokens where token_hash = ${spent} for update`,
      // The grace ends while the reuse waits: a millisecond after its transaction began.
      async (tx) => {
        await tx`update oauth_tokens set used_at = (select xact_start from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock')
          - make_interval(secs => ${REFRESH_REUSE_GRACE_SECONDS}) + interval '1 millisecond'
          where token_hash = ${spent}`;
        await tx`select pg_sleep(0.05)`;
      },
    );
    expect(answer.body.error).toBe("invalid_grant");
    expect(await grantRevoked(grant.clientId)).toBe(true);
  });

  it("answers a reuse in the grace only once the successor's rotation in progress has ended, and then as reuse", async () => {
    const { grant, issued, first } = await rotatedOnce();
    // The host's refresh with the successor, not yet committed.
    const answer = await reuseHeldBy(
      grant.clientId,
      issued.body.refresh_token,
      (tx) => tx`update oauth_tokens set used_at = now() where token_hash = ${sha256(first.body.refresh_token)}`,
    );
    expect(answer.body.error).toBe("invalid_grant");
    expect(await grantRevoked(grant.clientId)).toBe(true);
  });
});
