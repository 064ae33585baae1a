import { type Database, schema } from "@shelf/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import { accountAbilities } from "../abilities";
import { recordSecurityEvent } from "../security-log";
import { findClient, type OAuthClient, registeredRedirect } from "./clients";
import type { OAuthErrorCode } from "./errors";
import { ClientDocumentError } from "./metadata-documents";
import { configuredResource } from "./resource";
import type { OAuthSettings } from "./settings";
import { createCode, knownScopes } from "./tokens";

const { oauthGrants } = schema;

/** What a person approves or denies on the consent screen. */
export type AuthorizationRequest = {
  client: OAuthClient;
  redirectUri: string;
  scopes: string[];
  resource: string;
  state: string | null;
  codeChallenge: string;
};

export type AuthorizeOutcome =
  /** No trustworthy redirect URI: the person is told, nothing is sent anywhere (RFC 6749 section 4.1.2.1). */
  | { kind: "invalid"; message: string }
  /** A refusal the client hears about at its redirect URI. */
  | { kind: "redirect"; location: string }
  | { kind: "consent"; request: AuthorizationRequest };

export const DEFAULT_SCOPES = ["mcp.read", "products.read"];
const PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
];

/** The redirect URI with the answer's parameters added to its own query, `iss` included (RFC 9207). */
export function redirectWith(
  settings: OAuthSettings,
  redirectUri: string,
  params: Record<string, string | null>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  url.searchParams.set("iss", settings.issuer);
  return url.toString();
}

/**
 * Checks an authorization request. The client and its redirect URI come first: until both are sure, errors are
 * shown to the person, never sent. Then: the code flow only, PKCE with S256 only, the resource this server protects,
 * the scopes asked for that are abilities, or the default (mcp.read always, as the tokens work only on the MCP
 * endpoint).
 */
export async function checkAuthorizationRequest(
  db: Database,
  settings: OAuthSettings,
  query: URLSearchParams,
): Promise<AuthorizeOutcome> {
  for (const name of PARAMS) {
    if (query.getAll(name).length > 1)
      return { kind: "invalid", message: `The parameter ${name} is given more than once.` };
  }
  const clientId = query.get("client_id");
  if (!clientId) return { kind: "invalid", message: "The request names no client (client_id)." };
  let client: OAuthClient | null;
  try {
    client = await findClient(db, clientId, settings.documents);
  } catch (error) {
    if (ClientDocumentError.is(error)) {
      return { kind: "invalid", message: `The app's client_id cannot be used. ${error.message}` };
    }
    throw error;
  }
  if (!client) return { kind: "invalid", message: "The app asking is not registered here (unknown client_id)." };
  const given = query.get("redirect_uri");
  let redirectUri: string;
  if (given === null) {
    if (client.redirectUris.length !== 1) {
      return { kind: "invalid", message: "The request names no redirect_uri, and the app registered several." };
    }
    redirectUri = client.redirectUris[0] as string;
  } else if (registeredRedirect(client, given) !== null) {
    redirectUri = given;
  } else {
    return { kind: "invalid", message: "The redirect_uri is not one the app registered." };
  }

  const state = query.get("state");
  const refuse = (error: OAuthErrorCode, description: string): AuthorizeOutcome => ({
    kind: "redirect",
    location: redirectWith(settings, redirectUri, { error, error_description: description, state }),
  });
  if (query.get("response_type") !== "code") {
    return refuse("unsupported_response_type", "Only the authorization code flow (response_type=code) is supported.");
  }
  const challenge = query.get("code_challenge");
  const method = query.get("code_challenge_method");
  if (!challenge) return refuse("invalid_request", "PKCE is required: send code_challenge with method S256.");
  if (method !== "S256") return refuse("invalid_request", "Only the S256 code_challenge_method is accepted.");
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return refuse("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters).");
  }
  // This server has exactly one resource (the account MCP), so a request without `resource` (RFC 8707), as some
  // VS Code builds send, means that one (so does another loopback name of it); a request naming another is refused.
  const resource = configuredResource(settings.resource, query.get("resource") ?? settings.resource);
  if (resource !== settings.resource) {
    return refuse("invalid_target", `This server issues tokens only for ${settings.resource}.`);
  }
  // Scopes that are not abilities are dropped, as registration drops them (offline_access asks for refresh tokens,
  // which every grant gets); a request left with none asks for the default.
  const known = knownScopes(query.get("scope") ?? "");
  const asked = known.length > 0 ? known : DEFAULT_SCOPES;
  const scopes = accountAbilities.filter((name) => name === "mcp.read" || asked.includes(name));
  return { kind: "consent", request: { client, redirectUri, scopes, resource, state, codeChallenge: challenge } };
}

/** One line of the consent screen: a scope, and whether the app already holds it for this person. */
export type ConsentScope = { scope: string; held: boolean };

/**
 * What the consent screen lists: each scope asked for, and each the app already holds for this person (a step-up asks
 * again for what it holds). Those it holds are already allowed and stay so whatever is unticked (a new consent adds
 * to them; taking abilities away is disconnecting the app), so the screen shows them as such, not as a choice.
 */
export async function consentScopes(
  db: Database,
  accountId: number,
  request: AuthorizationRequest,
): Promise<ConsentScope[]> {
  const [grant] = await db
    .select({ scopes: oauthGrants.scopes })
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.accountId, accountId),
        eq(oauthGrants.clientId, request.client.id),
        isNull(oauthGrants.revokedAt),
      ),
    );
  const held = new Set(grant?.scopes ?? []);
  return accountAbilities
    .filter((scope) => request.scopes.includes(scope) || held.has(scope))
    .map((scope) => ({ scope, held: held.has(scope) }));
}

/**
 * The person approved: the app becomes (or stays) a connected app, and the client gets a code at its redirect URI.
 * `chosen` is what the person left ticked of the scopes asked for (all of them when not given; mcp.read always). A
 * new consent for an app already connected adds to what it holds (step-up): the grant's scopes are the union, and
 * so are the new token's; taking abilities away is disconnecting the app.
 */
export async function approveAuthorization(
  db: Database,
  settings: OAuthSettings,
  accountId: number,
  request: AuthorizationRequest,
  chosen?: readonly string[],
): Promise<string> {
  const approved = request.scopes.filter((scope) => scope === "mcp.read" || !chosen || chosen.includes(scope));
  const code = await db.transaction(async (tx) => {
    const [grant] = await tx
      .insert(oauthGrants)
      .values({ accountId, clientId: request.client.id, scopes: approved, redirectUri: request.redirectUri })
      .onConflictDoUpdate({
        target: [oauthGrants.accountId, oauthGrants.clientId],
        targetWhere: sql`${oauthGrants.revokedAt} is null`,
        set: {
          scopes: sql`array(select distinct scope from unnest(${oauthGrants.scopes} || excluded.scopes) scope)`,
          redirectUri: request.redirectUri,
        },
      })
      .returning({ id: oauthGrants.id, scopes: oauthGrants.scopes });
    const { id, scopes } = grant as { id: number; scopes: string[] };
    await recordSecurityEvent(tx, {
      accountId,
      kind: "app_connected",
      detail: { grant: id, client: request.client.name, scopes: approved.join(" ") },
    });
    return createCode(tx, {
      grantId: id,
      clientId: request.client.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scopes: accountAbilities.filter((ability) => scopes.includes(ability)),
    });
  });
  return redirectWith(settings, request.redirectUri, { code, state: request.state });
}

/** The person denied: the client hears `access_denied` at its redirect URI. */
export function denyAuthorization(settings: OAuthSettings, request: AuthorizationRequest): string {
  return redirectWith(settings, request.redirectUri, {
    error: "access_denied",
    error_description: "The person denied access.",
    state: request.state,
  });
}
