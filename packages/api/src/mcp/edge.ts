import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { withDeadline } from "@shelf/db";
import { accountAbilities } from "../abilities";
import type { Caller, Credential } from "../auth/caller";
import { credentialKey } from "../auth/caller";
import { apiKeyResolver, type CredentialPolicy, resolveCredential } from "../auth/credential";
import { createContext } from "../context";
import { clientAddressOf } from "../edge/address";
import { type Edge, type EdgeOptions, failureResult, unavailableResult } from "../edge/handler";
import type { EdgeRequest } from "../edge/request";
import { domainErrorBody, type EdgeResult, errorResult, jsonResult } from "../edge/results";
import { RouteTable } from "../edge/routes";
import { accessTokenResolver } from "../oauth/tokens";
import {
  allowedHostsFor,
  callProcedureTool,
  fromResponse,
  readRpcMessage,
  rpcError,
  safeJson,
  sameOrigin,
  serveStateless,
} from "./http";
import { endMcpSession, openMcpSession, touchMcpSession } from "./sessions";
import { type AccountTool, accountTools, toolsFor } from "./tools";

export const MCP_PATH = "/api/mcp";
/** What a token needs on the account MCP, and what an OAuth client is told to ask for by default (contract 5.2). */
export const MCP_DEFAULT_SCOPES = ["mcp.read", "products.read"] as const;

/** What the MCP edge shares with the account API's edge, and the hosts it answers for. */
export type McpEdgeOptions = Pick<
  EdgeOptions,
  | "router"
  | "db"
  | "dbDeadlineMs"
  | "health"
  | "log"
  | "baseUrl"
  | "delivery"
  | "keyBrand"
  | "rateLimiter"
  | "maxBodyBytes"
  | "trustProxy"
> & {
  /** Host names (with port) requests may name besides the base URL's; loopback ones are added for a loopback base. */
  allowedHosts?: readonly string[];
  credentials?: CredentialPolicy;
};

/** The account MCP (contract 5.2): account API keys, and the access tokens of sign-in, which work nowhere else. */
export const accountMcpPolicy: CredentialPolicy = {
  resolvers: [apiKeyResolver, accessTokenResolver],
  accepts: new Set(["api_key", "oauth_token"]),
};

type JsonRpcMessage = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The account MCP endpoint (Streamable HTTP, JSON answers): one stateless SDK server per request, whose tools are
 * the account API operations this caller may call, each calling its procedure so every check runs again. Sessions
 * live in PostgreSQL, so any instance serves any request of a session.
 */
export function createMcpEdge(options: McpEdgeOptions): Edge {
  const catalog = accountTools(options.router);
  const byName = new Map(catalog.map((tool) => [tool.name, tool]));
  const policy = options.credentials ?? accountMcpPolicy;
  const dbDeadlineMs = options.dbDeadlineMs ?? 6000;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const base = new URL(options.baseUrl);
  const resource = `${base.origin}${MCP_PATH}`;
  const resourceMetadata = `${base.origin}/.well-known/oauth-protected-resource${MCP_PATH}`;
  const hosts = allowedHostsFor(base, options.allowedHosts ?? []);
  const { log } = options;

  /** 401 with the challenge that sends an MCP client to discovery (RFC 9728 section 5.1). */
  function unauthorized(credential: Credential): EdgeResult {
    const code = credential.status === "none" ? "missing_api_key" : "invalid_api_key";
    const error = credential.status === "none" ? "" : ', error="invalid_token"';
    return jsonResult(401, domainErrorBody(code), {
      "www-authenticate": `Bearer resource_metadata="${resourceMetadata}", scope="${MCP_DEFAULT_SCOPES.join(" ")}"${error}`,
    });
  }

  /**
   * 403 with an `insufficient_scope` challenge (RFC 6750 section 3.1). Its scope is what the call needs plus what the
   * credential already holds: clients ask for exactly the challenge's scope again (the MCP step-up flow), and a token
   * for the missing ability alone would lose every tool the app already used.
   */
  function insufficient(caller: Caller, ability: string, message: string): EdgeResult {
    const scope = accountAbilities.filter((name) => name === ability || caller.abilities.has(name)).join(" ");
    return jsonResult(403, domainErrorBody("missing_api_key_ability", message), {
      "www-authenticate": `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadata}"`,
    });
  }

  /** The limit's headers of each request once it is counted. */
  const limitHeaders = new WeakMap<EdgeRequest, Record<string, string>>();

  async function handle(request: EdgeRequest): Promise<EdgeResult> {
    const requestId = request.requestId ?? randomUUID();
    let result: EdgeResult;
    try {
      result = await dispatch(request, requestId);
    } catch (error) {
      result = failureResult(error, { log, health: options.health, requestId });
    }
    result.headers["x-request-id"] = requestId;
    result.headers["cache-control"] ??= "no-store";
    result.headers["x-content-type-options"] = "nosniff";
    Object.assign(result.headers, limitHeaders.get(request));
    result.route = `${request.method} ${MCP_PATH}`;
    return result;
  }

  async function dispatch(request: EdgeRequest, requestId: string): Promise<EdgeResult> {
    const path = request.target.split("?", 1)[0];
    if (path !== MCP_PATH) return errorResult("not_found", "No such API endpoint.");
    // DNS rebinding: a page on another site reaching this server through a name that resolves to it.
    if (!sameOrigin(request, hosts, base)) return errorResult("forbidden_origin");
    if (request.method === "OPTIONS") return { status: 204, headers: { allow: "POST, DELETE, OPTIONS" }, body: null };
    if (request.method !== "POST" && request.method !== "DELETE") {
      // No server-to-client stream: every answer comes back on the POST that asked (JSON responses).
      return errorResult("method_not_allowed", "This endpoint takes POST (and DELETE to end a session).", {
        allow: "POST, DELETE, OPTIONS",
      });
    }
    if (options.health && !options.health.up) return unavailableResult();
    const credential = await withDeadline(
      resolveCredential(
        options.db,
        request.header("authorization"),
        policy,
        clientAddressOf(request.header("x-forwarded-for"), request.clientAddress, options.trustProxy),
      ),
      dbDeadlineMs,
    );
    if (credential.status !== "valid") return unauthorized(credential);
    const { caller } = credential;
    // The policy admits no design token here; refusing one again keeps the type to an account's callers.
    if (caller.type === "design_token") return unauthorized({ status: "invalid" });
    // A token is for one resource (RFC 8707): one issued for another is refused as if unknown.
    if (caller.type === "oauth_token" && caller.resource !== resource) return unauthorized({ status: "invalid" });
    if (!caller.abilities.has("mcp.read")) {
      return insufficient(caller, "mcp.read", "The account MCP needs the mcp.read ability.");
    }
    const limited = await options.rateLimiter.consume(credentialKey(caller));
    // The REST answers' limit headers, on every answer past this point (handle adds them).
    limitHeaders.set(request, {
      "x-ratelimit-limit": String(limited.limit),
      "x-ratelimit-remaining": String(limited.remaining),
    });
    if (!limited.allowed) {
      return errorResult("rate_limited", undefined, { "retry-after": String(limited.retryAfterSeconds) });
    }
    const owner = sessionOwner(caller);
    const sessionId = request.header("mcp-session-id");

    if (request.method === "DELETE") {
      if (!sessionId) return rpcError(400, "Mcp-Session-Id header is required to end a session.");
      if (!(await endMcpSession(options.db, sessionId, owner))) return rpcError(404, "Session not found.");
      return { status: 204, headers: {}, body: null };
    }

    const body = await readRpcMessage(request, maxBodyBytes);
    if (!body.ok) return body.result;
    const parsed = body.message;
    const messages: JsonRpcMessage[] = [parsed].filter(
      (message): message is JsonRpcMessage => typeof message === "object" && message !== null,
    );
    const initialize = messages.find((message) => message.method === "initialize");
    if (!initialize) {
      if (!sessionId) return rpcError(400, "Mcp-Session-Id header is required: send initialize first.");
      if (!(await touchMcpSession(options.db, sessionId, owner))) {
        return rpcError(404, "Session not found: it ended or expired. Send initialize to start a new one.");
      }
      const version = request.header("mcp-protocol-version");
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return rpcError(400, `Unsupported MCP-Protocol-Version ${version}.`);
      }
    }
    // A tool this credential may not call: say which ability (scope) it lacks, so an OAuth client can ask for it.
    for (const message of messages) {
      if (message.method !== "tools/call") continue;
      const name = (message.params as { name?: unknown } | undefined)?.name;
      const tool = typeof name === "string" ? byName.get(name) : undefined;
      if (tool?.ability && !caller.abilities.has(tool.ability)) {
        return insufficient(caller, tool.ability, `The ${tool.name} tool needs the ${tool.ability} ability.`);
      }
    }

    const response = await serve(request, parsed, caller, requestId);
    const result = await fromResponse(response);
    if (initialize && response.status === 200) {
      const answer = safeJson(result.body);
      const protocolVersion = (answer as { result?: { protocolVersion?: unknown } } | null)?.result?.protocolVersion;
      const client = (initialize.params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)
        ?.clientInfo;
      result.headers["mcp-session-id"] = await openMcpSession(options.db, {
        accountId: caller.accountId,
        credential: owner,
        protocolVersion: typeof protocolVersion === "string" ? protocolVersion : "unknown",
        clientName: typeof client?.name === "string" ? client.name : null,
        clientVersion: typeof client?.version === "string" ? client.version : null,
      });
    }
    return result;
  }

  /** One SDK server and one stateless transport for this request, with the caller's tools. */
  async function serve(request: EdgeRequest, body: unknown, caller: Caller, requestId: string): Promise<Response> {
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
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}.`);
      return callTool(tool, params.arguments ?? {}, caller, request, requestId);
    });
    return serveStateless(server, request, MCP_PATH, body);
  }

  async function callTool(
    tool: AccountTool,
    args: Record<string, unknown>,
    caller: Caller,
    request: EdgeRequest,
    requestId: string,
  ): Promise<CallToolResult> {
    const context = createContext({
      db: options.db,
      credential: { status: "valid", caller },
      baseUrl: options.baseUrl,
      delivery: options.delivery,
      acceptLanguage: request.header("accept-language"),
      keyBrand: options.keyBrand,
    });
    return callProcedureTool({
      router: options.router,
      path: tool.procedure,
      type: tool.type,
      ctx: context,
      input: () => args,
      dbDeadlineMs,
      log,
      requestId,
      tool: tool.name,
    });
  }

  return {
    handle,
    owns: (path) => path === MCP_PATH,
    routes: new RouteTable([]),
    document: { openapi: "3.1.0", info: { title: "Shelf account MCP", version: "1" }, paths: {} },
    ready: async () => true,
    close: async () => {},
  };
}

/**
 * Whose a session is: the key's, or, for sign-in tokens, the connected app's for this account, so that a session
 * outlives the hourly token refreshes that replace the token itself.
 */
function sessionOwner(caller: Caller): string {
  return caller.type === "oauth_token" ? `app:${caller.clientId}:account:${caller.accountId}` : credentialKey(caller);
}
