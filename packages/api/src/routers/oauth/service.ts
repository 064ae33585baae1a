import type { Database } from "@shelf/db";
import type { OAuthSettings } from "../../oauth/authorize";
import { assertKnownClient } from "../../oauth/clients";
import { OAuthError } from "../../oauth/errors";
import { refreshTokens } from "../../oauth/refresh";
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
  if (grantType === "authorization_code") {
    if (!input.code) throw new OAuthError("invalid_request", "code is required.");
    if (!input.code_verifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE).");
    return exchangeCode(db, settings.brand, {
      code: input.code,
      clientId,
      redirectUri: input.redirect_uri,
      verifier: input.code_verifier,
      resource: input.resource,
    });
  }
  if (!input.refresh_token) throw new OAuthError("invalid_request", "refresh_token is required.");
  return refreshTokens(db, settings.brand, {
    refreshToken: input.refresh_token,
    clientId,
    scope: input.scope,
    resource: input.resource,
  });
}

/** Revocation (RFC 7009) by the client that holds the token; an unknown token is no error. */
export async function revoke(db: Database, input: RevocationInput): Promise<void> {
  if (!input.token) throw new OAuthError("invalid_request", "token is required.");
  if (!input.client_id) throw new OAuthError("invalid_client", CLIENT_ID_REQUIRED);
  await assertKnownClient(db, input.client_id);
  await revokeToken(db, { token: input.token, clientId: input.client_id });
}
