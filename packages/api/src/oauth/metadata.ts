import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { accountAbilities } from "../abilities";
import { askedOrigin } from "./resource";
import type { OAuthSettings } from "./settings";

export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";
export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

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

/**
 * The account MCP's protected resource metadata (RFC 9728), naming the resource as the request's `Host` did when
 * that is another loopback name of it (see `oauth/resource.ts`).
 */
export function protectedResourceMetadata(settings: OAuthSettings, host: string | undefined) {
  const resource = new URL(settings.resource);
  return OAuthProtectedResourceMetadataSchema.parse({
    resource: `${askedOrigin(resource, host)}${resource.pathname}`,
    authorization_servers: [settings.issuer],
    scopes_supported: [...accountAbilities],
    bearer_methods_supported: ["header"],
    resource_name: "Shelf account MCP",
    resource_documentation: `${settings.issuer}/docs/api`,
  });
}
