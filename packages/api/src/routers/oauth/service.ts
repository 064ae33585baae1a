import type { Database } from "@shelf/db";
import { assertKnownClient } from "../../oauth/clients";
import { OAuthError } from "../../oauth/errors";
import { liveGrantPresented } from "../../oauth/presented-grant";
import { refreshTokens } from "../../oauth/refresh";
import { configuredResource } from "../../oauth/resource";
import type { OAuthSettings } from "../../oauth/settings";
import { exchangeCode, type IssuedTokens, revokeToken } from "../../oauth/tokens";
import type { RevocationInput, TokenInput } from "./schemas";

const CLIENT_ID_REQUIRED = "client_id is required (public clients identify themselves).";

/**
 * The token endpoint (RFC 6749 3.2): the authorization code grant with PKCE, or the refresh token grant with
 * rotation. A public client names itself by `client_id`; one no registration or document ever gave is
 * `invalid_client` before any code or token is looked at.
 */
export async function requestTokens(db: Database, settings: OAuthSettings, input: TokenInput): Promise<IssuedTokens> {
  const clientId = input.client_id;
  if (!clientId) throw new OAuthError("invalid_client", CLIENT_ID_REQUIRED);
  const grantType = input.grant_type;
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    throw new OAuthError(
      grantType ? "unsupported_grant_type" : "invalid_request",
      grantType ? `grant_type ${grantType} is not supported.` : "grant_type is required.",
    );
  }
  await assertKnownClient(db, clientId);
  const resource = input.resource === undefined ? undefined : configuredResource(settings.resource, input.resource);
  if (grantType === "authorization_code") {
    if (!input.code) throw new OAuthError("invalid_request", "code is required.");
    if (!input.code_verifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE).");
    return exchangeCode(db, settings.brand, {
      code: input.code,
      clientId,
      redirectUri: input.redirect_uri,
      verifier: input.code_verifier,
      resource,
    });
  }
  if (!input.refresh_token) throw new OAuthError("invalid_request", "refresh_token is required.");
  return refreshTokens(db, settings, {
    refreshToken: input.refresh_token,
    clientId,
    scope: input.scope,
    resource,
  });
}

/**
 * Whose budget of the rate limit a token request uses: the connected app's (client and grant) its live code or
 * usable refresh token names, so a hosted connector refreshing for all its people from a few addresses is counted per
 * person; a request that names no live grant of the client, its address's (null). Every request has already been
 * counted against its address's ceiling (`OAUTH_TOKEN_REQUESTS_PER_MINUTE`), before its body was read.
 */
export async function tokenRequestSubject(db: Database, input: Record<string, unknown>): Promise<string | null> {
  const text = (name: string) => (typeof input[name] === "string" ? (input[name] as string) : undefined);
  const clientId = text("client_id");
  if (clientId === undefined) return null;
  const grant = await liveGrantPresented(db, {
    clientId,
    code: text("grant_type") === "authorization_code" ? text("code") : undefined,
    refreshToken: text("grant_type") === "refresh_token" ? text("refresh_token") : undefined,
  });
  return grant === null ? null : `client:${clientId}:grant:${grant}`;
}

/** Revocation (RFC 7009) by the client that holds the token; an unknown token is no error. */
export async function revoke(db: Database, input: RevocationInput): Promise<void> {
  if (!input.token) throw new OAuthError("invalid_request", "token is required.");
  if (!input.client_id) throw new OAuthError("invalid_client", CLIENT_ID_REQUIRED);
  await assertKnownClient(db, input.client_id);
  await revokeToken(db, { token: input.token, clientId: input.client_id });
}
