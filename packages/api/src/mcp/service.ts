import type { Logger } from "@shelf/server/log";
import type { AnyRouter } from "@trpc/server";
import type { AnyCaller } from "../auth/caller";
import { credentialKey } from "../auth/caller";
import type { McpEndpoint } from "../context";
import { DomainError } from "../errors";
import { createMcpEndpoint } from "./endpoint";
import { accountTools } from "./tools";

export const MCP_PATH = "/api/mcp";
/** What a token needs on the account MCP, and what an OAuth client is told to ask for by default (contract 5.2). */
export const MCP_DEFAULT_SCOPES = ["mcp.read", "products.read"] as const;

/**
 * The account MCP (`/api/mcp`): the tools are the account API operations this caller may call (mcp/tools.ts), a
 * tool it lacks the ability for refused with 403 naming the ability (scope), so an OAuth client can ask for it.
 * Sessions live in PostgreSQL, so any instance serves any request of a session.
 */
export function createAccountMcp(options: { router: AnyRouter; dbDeadlineMs?: number; log: Logger }): McpEndpoint {
  return createMcpEndpoint({
    path: MCP_PATH,
    router: options.router,
    tools: accountTools(options.router),
    server: { name: "shelf-account", title: "Shelf account", version: "1.0.0" },
    capabilities: { tools: { listChanged: false }, logging: {} },
    instructions:
      "Tools over the Shelf account of the person who connected this client: their library and products, update checks and install plans, licenses and devices, orders, invoices and subscriptions. Each tool is one call of the Shelf account API; answers are its JSON.",
    holds: (caller, ability) => "abilities" in caller && caller.abilities.has(ability as never),
    refuse: (tool) =>
      new DomainError("missing_api_key_ability", `The ${tool.name} tool needs the ${tool.needs} ability.`, {
        ability: tool.needs,
      }),
    sessions: (caller) => ({ accountId: accountOf(caller), owner: sessionOwner(caller) }),
    dbDeadlineMs: options.dbDeadlineMs,
    log: options.log,
  });
}

function accountOf(caller: AnyCaller): number {
  if (caller.type === "design_token") throw new Error("The account MCP serves an account's callers only.");
  return caller.accountId;
}

/**
 * Whose a session is: the key's, or, for sign-in tokens, the connected app's for this account, so that a session
 * outlives the hourly token refreshes that replace the token itself.
 */
function sessionOwner(caller: AnyCaller): string {
  return caller.type === "oauth_token" ? `app:${caller.clientId}:account:${caller.accountId}` : credentialKey(caller);
}
