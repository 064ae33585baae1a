import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type Implementation,
  ListToolsRequestSchema,
  type McpError,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_DB_DEADLINE_MS } from "@shelf/server/edge/pipeline";
import type { EdgeRequest } from "@shelf/server/edge/request";
import type { Logger } from "@shelf/server/log";
import type { AnyRouter } from "@trpc/server";
import type { AnyCaller } from "../auth/caller";
import { createContext, type McpContext, type McpEndpoint, type RpcMessage } from "../context";
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
import type { McpTool } from "./tools";

/** What makes one MCP endpoint of this project: its path, its tools, who may call which, and its sessions. */
export type McpEndpointOptions = {
  path: string;
  /** The router whose procedures the tools call. */
  router: AnyRouter;
  tools: readonly McpTool[];
  server: Implementation;
  instructions: string;
  capabilities: ServerCapabilities;
  /** Whether a caller holds what a tool needs (an account ability, a design role). */
  holds: (caller: AnyCaller, need: string) => boolean;
  /**
   * The refusal of a call of a tool the caller lacks: a domain error is the HTTP answer, before the SDK reads the
   * message (the account MCP's 403 with its challenge); a JSON-RPC error is the call's answer (the design MCP's).
   */
  refuse: (tool: McpTool) => DomainError | McpError;
  /**
   * Sessions kept in PostgreSQL, opened by `initialize` and named by `Mcp-Session-Id` on every later request: whose
   * a session is (the account and the credential). Without: stateless, every request served on its own.
   */
  sessions?: (caller: AnyCaller) => { accountId: number; owner: string };
  /** How long a tool's call may wait for the database; the edge's default without. */
  dbDeadlineMs?: number;
  log: Logger;
};

/**
 * An MCP endpoint's serving code (Streamable HTTP, JSON answers), called by the endpoint's procedure once the edge
 * has done what it does for every route (Host and Origin, credential, rate limit, body, deadline): the message is
 * read once (its method, the tool it calls, that tool checked once against the caller), then one stateless SDK
 * server answers it, listing the tools this caller may call, each calling its procedure so every check runs again.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const { sessions } = options;

  async function post(ctx: McpContext, message: RpcMessage): Promise<unknown> {
    const { caller, http } = ctx;
    const initialize = message.method === "initialize";
    const unsupported = unsupportedProtocolVersion(http.header("mcp-protocol-version"));
    if (unsupported) throw unsupported;
    if (sessions && !initialize) {
      const sessionId = http.header("mcp-session-id");
      if (!sessionId) throw new DomainError("mcp_session_required");
      if (!(await touchMcpSession(ctx.db, sessionId, sessions(caller).owner))) {
        throw new DomainError("mcp_session_not_found");
      }
    }
    // The tool called, checked once: a refusal over HTTP now, a JSON-RPC one as the call's answer.
    let refusal: McpError | undefined;
    if (message.method === "tools/call") {
      const name = (message.params as { name?: unknown } | undefined)?.name;
      const tool = typeof name === "string" ? byName.get(name) : undefined;
      if (tool?.needs && !options.holds(caller, tool.needs)) {
        const refused = options.refuse(tool);
        if (refused instanceof DomainError) throw refused;
        refusal = refused;
      }
    }
    const response = await serve(ctx, message, refusal);
    const result = await fromResponse(response);
    const answer = safeJson(result.body);
    if (response.status === 406) throw new DomainError("not_acceptable");
    if (response.status >= 400) {
      const refused = (answer as { error?: { message?: unknown } } | null)?.error?.message;
      throw new DomainError("jsonrpc_invalid_request", typeof refused === "string" ? refused : undefined);
    }
    if (sessions && initialize && response.status === 200) {
      const protocolVersion = (answer as { result?: { protocolVersion?: unknown } } | null)?.result?.protocolVersion;
      const client = (message.params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)?.clientInfo;
      const { accountId, owner } = sessions(caller);
      ctx.res.headers["mcp-session-id"] = await openMcpSession(ctx.db, {
        accountId,
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
    if (!sessions) throw new Error(`${options.path} keeps no sessions: no route ends one.`);
    const unsupported = unsupportedProtocolVersion(ctx.http.header("mcp-protocol-version"));
    if (unsupported) throw unsupported;
    const sessionId = ctx.http.header("mcp-session-id");
    if (!sessionId)
      throw new DomainError("mcp_session_required", "Mcp-Session-Id header is required to end a session.");
    if (!(await endMcpSession(ctx.db, sessionId, sessions(ctx.caller).owner))) {
      throw new DomainError("mcp_session_not_found", "Session not found.");
    }
  }

  /** One SDK server and one stateless transport for this request, with the caller's tools. */
  async function serve(ctx: McpContext, message: RpcMessage, refusal: McpError | undefined): Promise<Response> {
    const { caller } = ctx;
    const server = new Server(options.server, {
      capabilities: options.capabilities,
      instructions: options.instructions,
    });
    const tools = options.tools.filter((tool) => tool.needs === null || options.holds(caller, tool.needs));
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        annotations: tool.annotations,
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const tool = byName.get(params.name);
      // An unknown tool is a protocol error (invalid params), not a tool's failed result.
      if (!tool) throw rpcFailure(ErrorCode.InvalidParams, `Unknown tool: ${params.name}.`);
      if (refusal) throw refusal;
      return callTool(ctx, tool, params.arguments ?? {});
    });
    const request: EdgeRequest = {
      method: "POST",
      target: options.path,
      header: ctx.http.header,
      body: null,
      clientAddress: undefined,
    };
    return serveStateless(server, request, options.path, message);
  }

  async function callTool(ctx: McpContext, tool: McpTool, args: Record<string, unknown>): Promise<CallToolResult> {
    // The host's whole context (its services), as the tool's own REST route would have it, with a response of its own.
    const { caller, res: _endpointResponse, ...host } = ctx;
    const context = createContext({ ...host, credential: { status: "valid", caller } });
    return callProcedureTool({
      router: options.router,
      path: tool.procedure,
      type: tool.type,
      ctx: context,
      input: () => (tool.toInput ? tool.toInput(args) : args),
      dbDeadlineMs: options.dbDeadlineMs ?? DEFAULT_DB_DEADLINE_MS,
      log: options.log,
      requestId: ctx.http.requestId,
      tool: tool.name,
      structured: (answer) => (tool.toOutput ? tool.toOutput(answer, args) : answer),
    });
  }

  return { post, end };
}
