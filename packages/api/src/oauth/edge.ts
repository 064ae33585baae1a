import { randomUUID } from "node:crypto";
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Database } from "@shelf/db";
import { accountAbilities } from "../abilities";
import { clientAddressOf } from "../edge/address";
import { type Edge, failureResult, type HealthSignal, unavailableResult } from "../edge/handler";
import { type EdgeRequest, FORM_TYPE, JSON_TYPE, parseForm, readBody } from "../edge/request";
import { type EdgeResult, errorResult, jsonResult } from "../edge/results";
import { RouteTable } from "../edge/routes";
import { parseClientJson, TOO_DEEP } from "../json-text";
import type { Logger } from "../log";
import type { RateLimiter } from "../rate-limit";
import type { OAuthSettings } from "./authorize";
import { assertKnownClient, registerClient } from "./clients";
import { OAuthError } from "./errors";
import { exchangeCode, refreshTokens, revokeToken } from "./tokens";

export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";
export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

export type OAuthEdgeOptions = {
  db: Database;
  settings: OAuthSettings;
  log: Logger;
  health?: HealthSignal;
  /** Token and revocation requests per client address. */
  rateLimiter: RateLimiter;
  /** Registrations per client address: a few a minute. */
  registrationLimiter: RateLimiter;
  trustProxy?: boolean;
};

/** Public endpoints any client may call from a browser: no cookies are read, so any origin may. */
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-allow-methods": "GET, POST, OPTIONS",
};
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/** The authorization server's metadata (RFC 8414), checked against the MCP SDK's schema of it. */
export function authorizationServerMetadata(settings: OAuthSettings) {
  return OAuthMetadataSchema.parse({
    issuer: settings.issuer,
    authorization_endpoint: `${settings.issuer}/oauth/authorize`,
    token_endpoint: `${settings.issuer}/oauth/token`,
    registration_endpoint: `${settings.issuer}/oauth/register`,
    revocation_endpoint: `${settings.issuer}/oauth/revoke`,
    scopes_supported: [...accountAbilities],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: settings.documents !== undefined,
    service_documentation: `${settings.issuer}/docs/api`,
  });
}

/** The account MCP's protected resource metadata (RFC 9728). */
export function protectedResourceMetadata(settings: OAuthSettings) {
  return OAuthProtectedResourceMetadataSchema.parse({
    resource: settings.resource,
    authorization_servers: [settings.issuer],
    scopes_supported: [...accountAbilities],
    bearer_methods_supported: ["header"],
    resource_name: "Shelf account MCP",
    resource_documentation: `${settings.issuer}/docs/api`,
  });
}

/**
 * The authorization server's HTTP endpoints: metadata, registration (RFC 7591), token (code with PKCE, refresh
 * with rotation) and revocation (RFC 7009). The authorization endpoint is a page (consent), served by the web app.
 */
export function createOAuthEdge(options: OAuthEdgeOptions): Edge {
  const { db, settings, log } = options;
  const resourcePath = new URL(settings.resource).pathname;
  const serverMetadata = JSON.stringify(authorizationServerMetadata(settings));
  const resourceMetadata = JSON.stringify(protectedResourceMetadata(settings));
  const paths = new Set([
    AUTHORIZATION_SERVER_METADATA_PATH,
    PROTECTED_RESOURCE_METADATA_PATH,
    `${PROTECTED_RESOURCE_METADATA_PATH}${resourcePath}`,
    "/oauth/register",
    "/oauth/token",
    "/oauth/revoke",
  ]);

  async function handle(request: EdgeRequest): Promise<EdgeResult> {
    const requestId = request.requestId ?? randomUUID();
    const path = request.target.split("?", 1)[0] as string;
    let result: EdgeResult;
    try {
      result = await dispatch(request, path);
    } catch (error) {
      if (error instanceof OAuthError) {
        result = jsonResult(error.status, error.body(), NO_STORE);
      } else {
        result = failureResult(error, { log, health: options.health, requestId });
        // An OAuth client reads OAuth's own error for a fault.
        if (result.status === 500) {
          result = jsonResult(500, new OAuthError("server_error", "The server failed; try again.").body());
        }
      }
    }
    Object.assign(result.headers, CORS, { "x-request-id": requestId });
    result.route = `${request.method} ${path}`;
    return result;
  }

  async function dispatch(request: EdgeRequest, path: string): Promise<EdgeResult> {
    if (request.method === "OPTIONS") return { status: 204, headers: { allow: "GET, POST, OPTIONS" }, body: null };
    if (path.startsWith("/.well-known/")) {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return errorResult("method_not_allowed", undefined, { allow: "GET, HEAD, OPTIONS" });
      }
      const body = path === AUTHORIZATION_SERVER_METADATA_PATH ? serverMetadata : resourceMetadata;
      return {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=3600" },
        body: request.method === "HEAD" ? null : body,
      };
    }
    if (request.method !== "POST") return errorResult("method_not_allowed", undefined, { allow: "POST, OPTIONS" });
    if (options.health && !options.health.up) return unavailableResult();
    const address = clientAddressOf(request.header("x-forwarded-for"), request.clientAddress, options.trustProxy);
    const limiter = path === "/oauth/register" ? options.registrationLimiter : options.rateLimiter;
    const limited = await limiter.consume(`oauth:ip:${address}`);
    if (!limited.allowed) {
      return jsonResult(
        429,
        {
          error: "slow_down",
          error_description: "Too many requests: wait and try again.",
          message: "Too many requests.",
        },
        { "retry-after": String(limited.retryAfterSeconds) },
      );
    }

    if (path === "/oauth/register") {
      const body = await readJson(request);
      return jsonResult(201, await registerClient(db, body), NO_STORE);
    }
    const form = await readForm(request);
    const clientId = form.get("client_id");
    if (path === "/oauth/revoke") {
      const token = form.get("token");
      if (!token) throw new OAuthError("invalid_request", "token is required.");
      if (!clientId)
        throw new OAuthError("invalid_client", "client_id is required (public clients identify themselves).");
      await assertKnownClient(db, clientId);
      await revokeToken(db, { token, clientId });
      return { status: 200, headers: { ...NO_STORE }, body: null };
    }
    // The token endpoint.
    if (!clientId)
      throw new OAuthError("invalid_client", "client_id is required (public clients identify themselves).");
    const grantType = form.get("grant_type");
    if (grantType === "authorization_code" || grantType === "refresh_token") await assertKnownClient(db, clientId);
    const resource = form.get("resource") ?? undefined;
    let tokens: Awaited<ReturnType<typeof exchangeCode>>;
    if (grantType === "authorization_code") {
      const code = form.get("code");
      const verifier = form.get("code_verifier");
      if (!code) throw new OAuthError("invalid_request", "code is required.");
      if (!verifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE).");
      tokens = await exchangeCode(db, settings.brand, {
        code,
        clientId,
        redirectUri: form.get("redirect_uri") ?? undefined,
        verifier,
        resource,
      });
    } else if (grantType === "refresh_token") {
      const refreshToken = form.get("refresh_token");
      if (!refreshToken) throw new OAuthError("invalid_request", "refresh_token is required.");
      tokens = await refreshTokens(db, settings.brand, {
        refreshToken,
        clientId,
        scope: form.get("scope") ?? undefined,
        resource,
      });
    } else {
      throw new OAuthError(
        grantType ? "unsupported_grant_type" : "invalid_request",
        grantType ? `grant_type ${grantType} is not supported.` : "grant_type is required.",
      );
    }
    return jsonResult(200, tokens, NO_STORE);
  }

  return {
    handle,
    owns: (path) => paths.has(path),
    routes: new RouteTable([]),
    document: { openapi: "3.1.0", info: { title: "Shelf authorization server", version: "1" }, paths: {} },
    ready: async () => true,
    close: async () => {},
  };
}

async function readBytes(request: EdgeRequest): Promise<Buffer> {
  const read = await readBody(request, 64 * 1024);
  if (!read.ok)
    throw new OAuthError(
      "invalid_request",
      read.reason === "too_large" ? "The body is too large." : "The body ended early.",
    );
  return read.bytes;
}

/** A form body (RFC 6749 requires it at the token endpoint), each parameter at most once. */
async function readForm(request: EdgeRequest): Promise<Map<string, string>> {
  if (!FORM_TYPE.test(request.header("content-type") ?? "")) {
    throw new OAuthError("invalid_request", "Send the body as application/x-www-form-urlencoded.");
  }
  const form = parseForm(await readBytes(request));
  if (!form.ok) {
    const problems = Object.entries(form.errors).map(([name, messages]) => `${name} ${messages.join(", ")}`);
    throw new OAuthError("invalid_request", `${problems.join("; ")}.`);
  }
  return new Map(Object.entries(form.fields));
}

async function readJson(request: EdgeRequest): Promise<unknown> {
  if (!JSON_TYPE.test(request.header("content-type") ?? "")) {
    throw new OAuthError("invalid_client_metadata", "Send the client metadata as application/json.");
  }
  const json = parseClientJson((await readBytes(request)).toString("utf8"));
  if (!json.ok && json.reason === "too_deep") throw new OAuthError("invalid_client_metadata", `The body ${TOO_DEEP}.`);
  if (!json.ok) throw new OAuthError("invalid_client_metadata", "The body is not valid JSON.");
  return json.value;
}
