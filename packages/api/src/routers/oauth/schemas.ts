import { z } from "zod";

/** A form field OAuth clients send as text; anything else is `invalid_request`. */
const Field = z.string().max(4000).optional();

/** The token request's parameters (RFC 6749 4.1.3 and 6, RFC 7636, RFC 8707); parameters it does not know are ignored. */
export const TokenInput = z
  .looseObject({
    grant_type: Field,
    client_id: Field,
    code: Field,
    redirect_uri: Field,
    code_verifier: Field,
    refresh_token: Field,
    scope: Field,
    resource: Field,
  })
  .meta({ id: "OAuthTokenRequest" });
export type TokenInput = z.infer<typeof TokenInput>;

/** The revocation request (RFC 7009 2.1). */
export const RevocationInput = z
  .looseObject({ token: Field, token_type_hint: Field, client_id: Field })
  .meta({ id: "OAuthRevocationRequest" });
export type RevocationInput = z.infer<typeof RevocationInput>;

/**
 * Client metadata (RFC 7591 2), as clients send it: the fields this server reads are checked by the registration
 * itself (it answers RFC 7591's own errors); every other field is accepted and ignored.
 */
export const RegistrationInput = z
  .looseObject({
    redirect_uris: z.array(z.string()).optional(),
    client_name: z.string().optional(),
    client_uri: z.string().optional(),
    token_endpoint_auth_method: z.string().optional(),
    grant_types: z.array(z.string()).optional(),
    response_types: z.array(z.string()).optional(),
    scope: z.string().optional(),
  })
  .meta({ id: "OAuthClientMetadata" });

export const RegisteredClientData = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal("none"),
    client_uri: z.string().optional(),
    scope: z.string().optional(),
  })
  .meta({ id: "OAuthClientInformation" });

export const TokenData = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    refresh_token: z.string(),
    scope: z.string(),
  })
  .meta({ id: "OAuthTokens" });

/** RFC 8414 metadata; its fields are the MCP SDK's schema's, checked when the answer is made. */
export const AuthorizationServerMetadataData = z
  .looseObject({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string().optional(),
    revocation_endpoint: z.string().optional(),
    scopes_supported: z.array(z.string()).optional(),
    code_challenge_methods_supported: z.array(z.string()).optional(),
  })
  .meta({ id: "OAuthAuthorizationServerMetadata" });

/** RFC 9728 metadata of the account MCP. */
export const ProtectedResourceMetadataData = z
  .looseObject({
    resource: z.string(),
    authorization_servers: z.array(z.string()).optional(),
    scopes_supported: z.array(z.string()).optional(),
    bearer_methods_supported: z.array(z.string()).optional(),
  })
  .meta({ id: "OAuthProtectedResourceMetadata" });

export const RevokedData = z.object({}).meta({ id: "OAuthRevoked" });
