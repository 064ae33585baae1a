import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { EdgeRequest } from "@shelf/server/edge/request";
import type { Logger } from "@shelf/server/log";
import type { AnyRouter } from "@trpc/server";
import type { Caller } from "../auth/caller";
import { credentialKey } from "../auth/caller";
import { type AccountMcp, type Context, createContext, type RpcMessage } from "../context";
import { DomainError } from "../errors";
import {
  callProcedureTool,
  fromResponse,
  rpcFailure,
  safeJson,
  serveStateless,
  unsupportedProtocolVersion,
} from "./http";
import { endMcpSession, openMcpSession, touchMcpSession } from "./sessions";
import { type AccountTool, accountTools, toolsFor } from "./tools";

export const MCP_PATH = "/api/mcp";
/** What a token needs on the account MCP, and what an OAuth client is told to ask for by default (contract 5.2). */
export const MCP_DEFAULT_SCOPES = ["mcp.read", "products.read"] as const;

/** What a procedure of the MCP endpoint has: its caller, and the HTTP request it speaks over. */
type McpContext = Context & { caller: Caller; http: NonNullable<Context["http"]> };

/**
 * The account MCP's serving code (Streamable HTTP, JSON answers), called by the endpoint's procedures once the edge
 * has done what it does for every route (Host and Origin, credential, rate limit, body, deadline): one stateless SDK
 * server per request, whose tools are the account API operations this caller may call, each calling its procedure
 * so every check runs again. Sessions live in PostgreSQL, so any instance serves any request of a session.
 */
export function createAccountMcp(options: { router: AnyRouter; dbDeadlineMs: number; log: Logger }): AccountMcp {
  const catalog = accountTools(options.router);
  const byName = new Map(catalog.map((tool) => [tool.name, tool]));

  async function post(ctx: McpContext, message: RpcMessage): Promise<unknown> {
    const { caller, http } = ctx;
    const owner = sessionOwner(caller);
    const sessionId = http.header("mcp-session-id");
    const initialize = message.method === "initialize";
    const unsupported = unsupportedProtocolVersion(http.header("mcp-protocol-version"));
    if (unsupported) throw unsupported;
    if (!initialize) {
      if (!sessionId) throw new DomainError("mcp_session_required");
      if (!(await touchMcpSession(ctx.db, sessionId, owner))) throw new DomainError("mcp_session_not_found");
    }
    // A tool this credential may not call: say which ability (scope) it lacks, so an OAuth client can ask for it.
    if (message.method === "tools/call") {
      const name = (message.params as { name?: unknown } | undefined)?.name;
      const tool = typeof name === "string" ? byName.get(name) : undefined;
      if (tool?.ability && !caller.abilities.has(tool.ability)) {
        throw new DomainError("missing_api_key_ability", `The ${tool.name} tool needs the ${tool.ability} ability.`, {
          ability: tool.ability,
        });
      }
    }
    const response = await serve(ctx, message);
    const result = await fromResponse(response);
    const answer = safeJson(result.body);
    if (response.status === 406) throw new DomainError("not_acceptable");
    if (response.status >= 400) {
      const refused = (answer as { error?: { message?: unknown } } | null)?.error?.message;
      throw new DomainError("jsonrpc_invalid_request", typeof refused === "string" ? refused : undefined);
    }
    if (initialize && response.status === 200) {
      const protocolVersion = (answer as { result?: { protocolVersion?: unknown } } | null)?.result?.protocolVersion;
      const client = (message.params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)?.clientInfo;
      ctx.res.headers["mcp-session-id"] = await openMcpSession(ctx.db, {
        accountId: caller.accountId,
        credential: owner,
        protocolVersion: typeof protocolVersion === "string" ? protocolVersion : "unknown",
        clientName: typeof client?.name === "string" ? client.name : null,
        clientVersion: typeof client?.version === "string" ? client.version : null,
      });
    }
    if (response.status === 202 || result.body === null) {
      ctx.res.status = 202;
      return undefined;
    }
    return answer;
  }

  async function end(ctx: McpContext): Promise<void> {
    const unsupported = unsupportedProtocolVersion(ctx.http.header("mcp-protocol-version"));
    if (unsupported) throw unsupported;
    const sessionId = ctx.http.header("mcp-session-id");
    if (!sessionId)
      throw new DomainError("mcp_session_required", "Mcp-Session-Id header is required to end a session.");
    if (!(await endMcpSession(ctx.db, sessionId, sessionOwner(ctx.caller)))) {
      throw new DomainError("mcp_session_not_found", "Session not found.");
    }
  }

  /** One SDK server and one stateless transport for this request, with the caller's tools. */
  async function serve(ctx: McpContext, message: RpcMessage): Promise<Response> {
    const { caller } = ctx;
    const server = new Server(
      { name: "shelf-account", title: "Shelf account", version: "1.0.0" },
      {
        capabilities: { tools: { listChanged: false }, logging: {} },
        instructions:
          "Tools over the Shelf account of the person who connected this client: their library and products, update checks and install plans, licenses and devices, orders, invoices and subscriptions. Each tool is one call of the Shelf account API; answers are its JSON.",
      },
    );
    const tools = toolsFor(catalog, caller);
    const allowed = new Map(tools.map((tool) => [tool.name, tool]));
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const tool = allowed.get(params.name);
      // An unknown tool is a protocol error (invalid params), not a tool's failed result.
      if (!tool) throw rpcFailure(ErrorCode.InvalidParams, `Unknown tool: ${params.name}.`);
      return callTool(ctx, tool, params.arguments ?? {});
    });
    const request: EdgeRequest = {
      method: "POST",
      target: MCP_PATH,
      header: ctx.http.header,
      body: null,
      clientAddress: undefined,
    };
    return serveStateless(server, request, MCP_PATH, message);
  }

  async function callTool(ctx: McpContext, tool: AccountTool, args: Record<string, unknown>): Promise<CallToolResult> {
    const context = createContext({
      db: ctx.db,
      credential: { status: "valid", caller: ctx.caller },
      baseUrl: ctx.baseUrl,
      delivery: ctx.delivery,
      acceptLanguage: ctx.acceptLanguage,
      keyBrand: ctx.keyBrand,
      log: ctx.log,
    });
    return callProcedureTool({
      router: options.router,
      path: tool.procedure,
      type: tool.type,
      ctx: context,
      input: () => args,
      dbDeadlineMs: options.dbDeadlineMs,
      log: options.log,
      requestId: ctx.http.requestId,
      tool: tool.name,
    });
  }

  return { post, end };
}

/**
 * Whose a session is: the key's, or, for sign-in tokens, the connected app's for this account, so that a session
 * outlives the hourly token refreshes that replace the token itself.
 */
function sessionOwner(caller: Caller): string {
  return caller.type === "oauth_token" ? `app:${caller.clientId}:account:${caller.accountId}` : credentialKey(caller);
}
