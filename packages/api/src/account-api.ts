import { type ApiEdge, createEdge, type HostEdgeOptions } from "./api-edge";

import { accountApiPolicy } from "./auth/credential";
import type { AccountServices, McpEndpoint } from "./context";
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
export function createAccountApiEdge(options: AccountEdgeOptions): ApiEdge {
  const { allowedHosts = [], delivery, guessLimits, oauth, mcp, ...edgeOptions } = options;
  return createEdge<AccountServices>({
    ...edgeOptions,
    router: appRouter,
    credentials: accountApiPolicy,
    protocols: [oauthProtocol, mcpProtocol(options.baseUrl, allowedHosts, accountMcpCredentials)],
    document: ACCOUNT_API_DOCUMENT,
    services: { delivery, guessLimits, oauth, mcp: mcp ?? createAccountMcpOf(options) },
  });
}

/** What the account API's edge is made with: the host's edge options and the account's services. */
export type AccountEdgeOptions = HostEdgeOptions &
  Omit<AccountServices, "mcp"> & {
    /** The account MCP's serving code, when the host shares one with its pages; else the edge makes its own. */
    mcp?: McpEndpoint;
  };

/** The account MCP over the app router, with the edge's deadline and log (the pages' caller gets the same one). */
export function createAccountMcpOf(options: Pick<HostEdgeOptions, "dbDeadlineMs" | "log">): McpEndpoint {
  return createAccountMcp({ router: appRouter, dbDeadlineMs: options.dbDeadlineMs, log: options.log });
}
