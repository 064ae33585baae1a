import { type ApiEdge, createEdge, type HostEdgeOptions } from "./api-edge";

import { accountApiPolicy } from "./auth/credential";
import { createAccountMcp } from "./mcp/service";
import { accountMcpCredentials, mcpProtocol } from "./protocols/mcp";
import { oauthProtocol } from "./protocols/oauth";
import { appRouter } from "./root";

export const ACCOUNT_API_DOCUMENT = {
  path: "/api/openapi.json",
  info: {
    title: "Shelf API",
    version: "1",
    description:
      "The account API: library, products, releases, update checks, install plans, release files and content assets; license checks with device seats and offline certificates, the all-access pass, setup progress, the device API and the signed client policy (verify certificates and the policy with the JWKS at /.well-known/jwks.json); and the app host's Sparkle appcasts and release downloads. Send an account API key as `Authorization: Bearer <key>` (never in a URL); signed download links carry no key.",
  },
};

/**
 * The account API over HTTP: every route of the app router, account API keys only (contract 5.2 and 5.3), except
 * the account MCP (`/api/mcp`), which also takes the access tokens of sign-in.
 */
export function createAccountApiEdge(options: HostEdgeOptions): ApiEdge {
  const { allowedHosts = [], ...edgeOptions } = options;
  return createEdge({
    ...edgeOptions,
    router: appRouter,
    credentials: accountApiPolicy,
    protocols: [oauthProtocol, mcpProtocol(options.baseUrl, allowedHosts, accountMcpCredentials)],
    document: ACCOUNT_API_DOCUMENT,
    mcp: createAccountMcp({ router: appRouter, dbDeadlineMs: options.dbDeadlineMs, log: options.log }),
  });
}
