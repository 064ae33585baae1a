import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { recordSecret, selfSignedCertificate, tlsServer } from "@shelf/api/testing";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import * as oauth from "oauth4webapi";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCli } from "./admin-cli";
import { type RunningServer, startServer } from "./server";

/**
 * The authorization server and the account MCP as an MCP client meets them, headless against the production
 * build: the MCP SDK's own client discovers from the 401, registers, sends its person through sign-in and consent
 * (followed here with a cookie jar), exchanges the code, lists and calls tools, refreshes, and is stopped by reuse
 * detection, expiry and disconnection.
 */

let testDb: TestDatabase;
let sql: postgres.Sql;
let dataDir: string;
let server: RunningServer;
const admin = adminCli(() => ({ databaseUrl: testDb.url, dataDir }));
const EMAIL = "olivia@example.test";
const PASSWORD = "a long and careful passphrase";
let productId: number;
/** A local TLS site publishing client ID metadata documents, trusted by the server through NODE_EXTRA_CA_CERTS. */
let site: Awaited<ReturnType<typeof tlsServer>>;

beforeAll(async () => {
  const certificate = await selfSignedCertificate();
  site = await tlsServer(certificate);
  testDb = await createTestDatabase();
  sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-oauth-e2e-"));
  await admin("account:create", "--email", EMAIL, "--name", "Olivia", "--password", PASSWORD);
  productId = (await admin("product:create", "--name", "Token Tower", "--price-cents", "900")).id;
  await admin("entitlement:grant", "--email", EMAIL, "--product", String(productId));
  server = await startServer({
    DATABASE_URL: testDb.url,
    SHELF_DATA_DIR: dataDir,
    SHELF_RATE_LIMIT_PER_MINUTE: "1000",
    NODE_EXTRA_CA_CERTS: certificate.certFile,
    SHELF_OAUTH_LOOPBACK_DOCUMENT_ORIGIN: site.origin,
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await site?.close();
  await sql?.end();
  await testDb?.drop();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

/** Signs the test person in through next-auth's own endpoints, as a browser would; returns the cookie header. */
async function signIn(): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, ...value] = (pair as string).split("=");
      jar.set(name as string, value.join("="));
    }
  };
  const header = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const csrf = await fetch(`${server.url}/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signedIn = await fetch(`${server.url}/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: header() },
    body: new URLSearchParams({ csrfToken, email: EMAIL, password: PASSWORD, json: "true" }),
    redirect: "manual",
  });
  keep(signedIn);
  expect([...jar.keys()].some((name) => name.includes("session-token"))).toBe(true);
  return header();
}

/**
 * What the person's browser does at the authorization URL: the consent page (signed in), then "Allow" or "Deny".
 * Returns where the server sends the browser back to.
 */
async function consent(authorizationUrl: URL, cookie: string, decision: "approve" | "deny"): Promise<URL> {
  const target = new URL(authorizationUrl.pathname + authorizationUrl.search, server.url);
  let page = await fetch(target, { headers: { cookie }, redirect: "manual" });
  // The page adds the redirect URI to its address once.
  if (page.status === 307 || page.status === 303) {
    page = await fetch(new URL(page.headers.get("location") as string, server.url), { headers: { cookie } });
  }
  expect(page.status).toBe(200);
  const html = await page.text();
  const field = (name: string) => {
    const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
    return (match?.[1] ?? "").replaceAll("&amp;", "&");
  };
  const decided = await fetch(`${server.url}/oauth/authorize/decision`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: server.url },
    // The boxes the page leaves ticked, as a browser sends them (a disabled box sends nothing).
    body: new URLSearchParams([
      ["request", field("request")],
      ["token", field("token")],
      ["decision", decision],
      ...[...html.matchAll(/<input[^>]*name="scope"[^>]*>/g)]
        .filter(([input]) => !/\sdisabled/.test(input))
        .map(([input]) => ["scope", /value="([^"]*)"/.exec(input)?.[1] ?? ""]),
    ]),
    redirect: "manual",
  });
  expect(decided.status, await decided.clone().text()).toBe(303);
  return new URL(decided.headers.get("location") as string);
}

/** An MCP client's OAuth state, kept in memory; its "browser" is the consent helper above. */
class TestProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  lastRedirect?: URL;
  lastAuthorization?: URL;
  constructor(
    private readonly cookie: string,
    private readonly decision: "approve" | "deny" = "approve",
    /** Set: the client names itself by this metadata document's URL instead of registering. */
    readonly clientMetadataUrl?: string,
  ) {}
  get redirectUrl() {
    return "http://127.0.0.1:33418/callback";
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Test MCP Client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    recordSecret(tokens.access_token);
    if (tokens.refresh_token) recordSecret(tokens.refresh_token);
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.lastAuthorization = url;
    this.lastRedirect = await consent(url, this.cookie, this.decision);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The account MCP under the base URL's name (the server listens on 127.0.0.1; its base URL says localhost). */
const mcpUrl = () => new URL(`${server.url.replace("127.0.0.1", "localhost")}/api/mcp`);

/** The SDK's flow: connect, get 401, authorize through the provider, finish with the code, connect again. */
async function connectWithOAuth(provider: TestProvider, url = mcpUrl()) {
  const first = new Client({ name: "oauth-e2e", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toThrow(
    /Unauthorized/i,
  );
  const code = provider.lastRedirect?.searchParams.get("code");
  expect(code).toBeTruthy();
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(code as string);
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

describe("OAuth for MCP clients", () => {
  it("publishes discovery documents an MCP client can follow from the 401", async () => {
    const challenge = await fetch(mcpUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(challenge.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get("www-authenticate") ?? "")?.[1];
    expect(metadataUrl).toBe(`${mcpUrl().origin}/.well-known/oauth-protected-resource/api/mcp`);
    const resource = await (await fetch(metadataUrl as string)).json();
    expect(resource).toMatchObject({
      resource: `http://localhost:${new URL(server.url).port}/api/mcp`,
      bearer_methods_supported: ["header"],
    });
    expect(resource.scopes_supported).toContain("mcp.read");
    const root = await (await fetch(`${mcpUrl().origin}/.well-known/oauth-protected-resource`)).json();
    expect(root).toEqual(resource);
    // Asked under another loopback name, the documents name that one (a host checks them, RFC 9728 3.3).
    const aliased = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/api/mcp`)).json();
    expect(aliased.resource).toBe(`${server.url}/api/mcp`);
    expect(aliased.authorization_servers).toEqual(resource.authorization_servers);
    const issuer = resource.authorization_servers[0];
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata).toMatchObject({
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
    });
  });

  it("runs the SDK client's whole flow: register, consent, token, tools, refresh with rotation", async () => {
    const provider = new TestProvider(await signIn());
    const client = await connectWithOAuth(provider);
    expect(provider.lastRedirect?.searchParams.get("iss")).toBe(`http://localhost:${new URL(server.url).port}`);
    const saved = provider.saved as OAuthTokens;
    expect(saved.token_type).toBe("Bearer");
    expect(saved.expires_in).toBe(3600);
    expect(saved.scope).toBe("products.read mcp.read");

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("library_get");
    expect(tools.map((tool) => tool.name)).not.toContain("orders_list");
    const library = await client.callTool({ name: "library_get", arguments: {} });
    expect((library.content as { text: string }[])[0]?.text).toContain("Token Tower");
    await client.close();

    // A token works only on the account MCP: the REST API refuses it like an unknown key (contract 5.3).
    const rest = await fetch(`${server.url}/api/library`, {
      headers: { authorization: `Bearer ${saved.access_token}` },
    });
    expect(rest.status).toBe(401);
    expect((await rest.json()).error).toBe("invalid_api_key");

    // Refresh: a new pair each time; the old refresh token is spent.
    const rotated = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: saved.refresh_token as string,
      client_id: provider.client?.client_id as string,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body.refresh_token).not.toBe(saved.refresh_token);
    recordSecret(rotated.body.access_token);
    recordSecret(rotated.body.refresh_token);

    const refresh = async (refreshToken: string) => {
      const answer = await tokenRequest({
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: provider.client?.client_id as string,
      });
      if (answer.status === 200) {
        recordSecret(answer.body.access_token);
        recordSecret(answer.body.refresh_token);
      }
      return answer;
    };
    // The spent refresh token again at once, as a host's parallel refresh would: the same pair, the grant kept.
    const parallel = await refresh(saved.refresh_token as string);
    expect(parallel.status).toBe(200);
    expect(parallel.body).toMatchObject({
      access_token: rotated.body.access_token,
      refresh_token: rotated.body.refresh_token,
    });
    // The host moves on to its new pair...
    const next = await refresh(rotated.body.refresh_token);
    expect(next.status).toBe(200);
    // ...so the spent refresh token again is a copy in other hands: the whole grant revoked, the new tokens too.
    const reused = await refresh(saved.refresh_token as string);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    expect((await mcpCall(next.body.access_token)).status).toBe(401);
    const again = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: next.body.refresh_token,
      client_id: provider.client?.client_id as string,
    });
    expect(again.body.error).toBe("invalid_grant");
    expect(server.output()).not.toContain(saved.access_token);
  });

  it("stops a connected app on its very next call once disconnected, and after its token expires", async () => {
    const cookie = await signIn();
    const provider = new TestProvider(cookie);
    const client = await connectWithOAuth(provider);
    const token = provider.saved?.access_token as string;
    expect((await mcpCall(token)).status).toBe(200);

    await sql`update oauth_tokens set expires_at = now() - interval '1 second'
      where token_hash = encode(sha256(convert_to(${token}, 'UTF8')), 'hex')`;
    expect((await mcpCall(token)).status).toBe(401);

    const fresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: provider.saved?.refresh_token as string,
      client_id: provider.client?.client_id as string,
    });
    expect(fresh.status).toBe(200);
    recordSecret(fresh.body.access_token);
    recordSecret(fresh.body.refresh_token);
    expect((await mcpCall(fresh.body.access_token)).status).toBe(200);
    const [grant] = await sql<{ id: number; last_used_at: Date | null }[]>`
      select g.id, g.last_used_at from oauth_grants g where g.client_id = ${provider.client?.client_id as string}`;
    expect(grant?.last_used_at).not.toBeNull();

    // Disconnect, as the connected-apps page does (its own test drives the page).
    await sql`update oauth_grants set revoked_at = now() where id = ${grant?.id as number}`;
    expect((await mcpCall(fresh.body.access_token)).status).toBe(401);
    await client.close();
  });

  it("keeps a host with two tool calls in flight connected across every token expiry of a day", async () => {
    const provider = new TestProvider(await signIn());
    const client = await connectWithOAuth(provider);
    const grantOf = async () =>
      (
        await sql<{ revoked: boolean }[]>`select revoked_at is not null as revoked from oauth_grants
          where client_id = ${provider.client?.client_id as string}`
      )[0];
    for (let hour = 0; hour < 24; hour += 1) {
      // The hour passes: the access token the host holds has expired.
      const held = provider.saved?.access_token as string;
      await sql`update oauth_tokens set expires_at = now() - interval '1 second'
        where token_hash = encode(sha256(convert_to(${held}, 'UTF8')), 'hex')`;
      // Two calls in flight: each meets the 401, each refreshes with the same refresh token, each retries.
      const calls = await Promise.allSettled([
        client.callTool({ name: "library_get", arguments: {} }),
        client.callTool({ name: "library_get", arguments: {} }),
      ]);
      expect(
        calls.map((call) => call.status),
        `hour ${hour}: ${calls.map((call) => (call.status === "rejected" ? String(call.reason) : "ok")).join(", ")}`,
      ).toEqual(["fulfilled", "fulfilled"]);
      expect(provider.saved?.access_token).not.toBe(held);
      // Both refreshes got the one successor: a single chain, no sibling refreshing on by itself.
      const [chains] = await sql<{ live: number }[]>`select count(*)::int as live from oauth_tokens t
        join oauth_grants g on g.id = t.grant_id where g.client_id = ${provider.client?.client_id as string}
          and t.kind = 'refresh' and t.used_at is null and t.revoked_at is null`;
      expect(chains?.live, `hour ${hour}`).toBe(1);
    }
    expect((await grantOf())?.revoked).toBe(false);
    await client.close();
  });

  it("serves a host given the 127.0.0.1 address of a localhost server: discovery, sign-in, tools, refresh", async () => {
    const provider = new TestProvider(await signIn());
    const url = new URL(`${server.url}/api/mcp`);
    expect(url.hostname).toBe("127.0.0.1");
    const client = await connectWithOAuth(provider, url);
    const library = await client.callTool({ name: "library_get", arguments: {} });
    expect((library.content as { text: string }[])[0]?.text).toContain("Token Tower");
    // Its next hour: the access token expired, the SDK refreshes (resource under the same name) and carries on.
    await sql`update oauth_tokens set expires_at = now() - interval '1 second'
      where token_hash = encode(sha256(convert_to(${provider.saved?.access_token as string}, 'UTF8')), 'hex')`;
    const held = provider.saved?.access_token;
    expect((await client.callTool({ name: "library_get", arguments: {} })).isError ?? false).toBe(false);
    expect(provider.saved?.access_token).not.toBe(held);
    await client.close();
  });

  it("answers an unknown client_id with 400 and the page that says so, never a redirect", async () => {
    const cookie = await signIn();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: "shelfc_nobody_registered_this",
      redirect_uri: "https://attacker.example/callback",
      code_challenge: "a".repeat(43),
      code_challenge_method: "S256",
      resource: mcpUrl().href,
    });
    for (const headers of [{}, { cookie }] as Record<string, string>[]) {
      const response = await fetch(`${server.url}/oauth/authorize?${query}`, { headers, redirect: "manual" });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(response.headers.get("content-type")).toContain("text/html");
      expect(await response.text()).toContain("unknown client_id");
    }
  });

  it("sends a denial back as access_denied with state and iss", async () => {
    const provider = new TestProvider(await signIn(), "deny");
    const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider })),
    ).rejects.toThrow();
    const back = provider.lastRedirect as URL;
    expect(back.origin + back.pathname).toBe("http://127.0.0.1:33418/callback");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("iss")).toBeTruthy();
    // state comes back exactly as sent (the SDK may send none).
    expect(back.searchParams.get("state")).toBe(provider.lastAuthorization?.searchParams.get("state") ?? null);
  });
});

async function tokenRequest(fields: Record<string, string>) {
  const response = await fetch(`${server.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** One initialize on the account MCP with a bearer token. */
function mcpCall(token: string) {
  return fetch(mcpUrl(), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
    }),
  });
}

describe("client ID metadata documents", () => {
  it("lets the SDK client name itself by a document on a TLS site, fetched and checked by the server", async () => {
    const clientId = `${site.origin}/mcp/client.json`;
    site.answer("/mcp/client.json", {
      headers: { "cache-control": "max-age=300" },
      body: JSON.stringify({
        client_id: clientId,
        client_name: "Documented Client",
        redirect_uris: ["http://127.0.0.1:33418/callback"],
        token_endpoint_auth_method: "none",
      }),
    });
    const provider = new TestProvider(await signIn(), "approve", clientId);
    const client = await connectWithOAuth(provider);
    expect(provider.client?.client_id).toBe(clientId);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("library_get");
    await client.close();
    expect(site.hits("/mcp/client.json")).toBe(1);
  });

  it("refuses documents at private addresses and documents that lie, telling the person why", async () => {
    const cookie = await signIn();
    const page = (clientId: string) => {
      const query = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "http://127.0.0.1:33418/callback",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
        resource: mcpUrl().href,
      });
      return fetch(`${server.url}/oauth/authorize?${query}`, { headers: { cookie } }).then((response) =>
        response.text(),
      );
    };
    const port = new URL(server.url).port;
    // The server's own metadata endpoint, by an address the server would have to reach itself.
    expect(await page(`https://127.0.0.1:${port}/.well-known/oauth-authorization-server`)).toContain(
      "address is not a public one",
    );
    expect(await page("https://169.254.169.254/latest/meta-data/iam")).toContain("address is not a public one");
    site.answer("/mcp/liar.json", {
      body: JSON.stringify({
        client_id: `${site.origin}/mcp/client.json`,
        redirect_uris: ["http://127.0.0.1:33418/callback"],
      }),
    });
    const liar = await page(`${site.origin}/mcp/liar.json`);
    expect(liar, liar.replace(/<[^>]+>/g, " ").slice(0, 2000)).toContain("another client_id");
  });
});

describe("a strict RFC client (oauth4webapi)", () => {
  it("runs RFC 9728 and 8414 discovery, 7591 registration, PKCE, 9207 iss, the code and refresh grants and 7009", async () => {
    const insecure = { [oauth.allowInsecureRequests]: true };
    const resourceUrl = mcpUrl();
    const resource = await oauth.processResourceDiscoveryResponse(
      resourceUrl,
      await oauth.resourceDiscoveryRequest(resourceUrl, insecure),
    );
    const issuer = new URL(resource.authorization_servers?.[0] as string);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...insecure, algorithm: "oauth2" }),
    );
    expect(as.issuer).toBe(issuer.href.replace(/\/$/, ""));

    const redirectUri = "http://127.0.0.1:33419/callback";
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: "Strict client", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" },
        insecure,
      ),
    );
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint as string);
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: "code",
      scope: "mcp.read products.read",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      resource: resource.resource,
      state,
    }).toString();
    const back = await consent(authorizationUrl, await signIn(), "approve");
    // Checks iss (RFC 9207) and state.
    const params = oauth.validateAuthResponse(as, client, back, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
        ...insecure,
        additionalParameters: { resource: resource.resource },
      }),
    );
    recordSecret(tokens.access_token);
    recordSecret(tokens.refresh_token as string);
    expect(tokens.token_type).toBe("bearer");
    expect((await mcpCall(tokens.access_token)).status).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, insecure),
    );
    recordSecret(refreshed.access_token);
    recordSecret(refreshed.refresh_token as string);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, insecure),
    );
    expect((await mcpCall(refreshed.access_token)).status).toBe(401);
  });
});

/** The Python MCP SDK, in the venv scripts/ensure-test-deps.sh makes when pip can install it here. */
const pythonSdk = fileURLToPath(new URL("../../../.tools/pymcp/bin/python", import.meta.url));
const hasPythonSdk = existsSync(pythonSdk);

/**
 * Runs the Python client script (test/python/oauth_client.py): answers its `AUTHORIZE <url>` with the browser's
 * consent, and returns its `RESULT` (or fails with everything it printed).
 */
function runPythonClient(url: string, cookie: string): Promise<Record<string, unknown>> {
  const script = fileURLToPath(new URL("./python/oauth_client.py", import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(pythonSdk, [script, url], { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    let result: Record<string, unknown> | undefined;
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      output += `${line}\n`;
      if (line.startsWith("AUTHORIZE ")) {
        consent(new URL(line.slice("AUTHORIZE ".length)), cookie, "approve").then(
          (back) => child.stdin.write(`CALLBACK ${back.href}\n`),
          (error) => {
            output += `consent failed: ${error}\n`;
            child.kill("SIGKILL");
          },
        );
      } else if (line.startsWith("RESULT ")) {
        result = JSON.parse(line.slice("RESULT ".length));
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0 && result) resolve(result);
      else reject(new Error(`the Python client exited with ${code}:\n${output}`));
    });
  });
}

describe("the Python MCP SDK's OAuth client", () => {
  it.skipIf(!hasPythonSdk)(
    `registers, is approved, exchanges the code and calls tools, given the localhost or the 127.0.0.1 address${hasPythonSdk ? "" : " (skipped: no .tools/pymcp — pip could not install the Python MCP SDK here; see scripts/ensure-test-deps.sh)"}`,
    async () => {
      for (const url of [mcpUrl().href, `${server.url}/api/mcp`]) {
        const result = await runPythonClient(url, await signIn());
        expect(result, url).toMatchObject({
          client_id: expect.stringMatching(/^shelfc_/),
          auth_method: "none",
          token_type: expect.stringMatching(/^bearer$/i),
          scope: "products.read mcp.read",
          has_refresh_token: true,
          library_is_error: false,
        });
        expect(result.tools, url).toContain("library_get");
        expect(result.tools, url).not.toContain("orders_list");
        expect(JSON.stringify(result.library), url).toContain("Token Tower");
        expect(result.unknown_tool_error, url).toContain("Unknown tool");
        // The registration is the app the person now sees among their connected apps.
        const [row] = await sql`select name from oauth_clients where id = ${result.client_id as string}`;
        expect(row?.name, url).toBe("Python MCP SDK test");
      }
    },
    240_000,
  );
});
