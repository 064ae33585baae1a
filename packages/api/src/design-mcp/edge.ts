import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { withDeadline } from "@shelf/db";
import { allowedHostsFor, sameOrigin } from "@shelf/server/edge/hosts";
import type { EdgeRequest } from "@shelf/server/edge/request";
import type { EdgeOptions } from "../api-edge";
import type { DesignCaller } from "../auth/caller";
import { credentialKey } from "../auth/caller";
import { resolveCredential } from "../auth/credential";
import { createContext } from "../context";
import { designApiPolicy, designRouter } from "../design-api";
import { failureResult, unavailableResult } from "../edge/failure";
import { asJsonRpcError, readRpcMessage } from "../edge/json-rpc";
import type { Edge } from "../edge/pipeline";
import { type EdgeResult, errorResult } from "../edge/results";
import { RouteTable } from "../edge/routes";
import { callProcedureTool, fromResponse, rpcFailure, serveStateless, unsupportedProtocolVersion } from "../mcp/http";
import { authorizeDesign } from "../procedures/authorize";
import { type DesignTool, designTools, toolSchema } from "./tools";

export const DESIGN_MCP_PATH = "/mcp";

export type DesignMcpEdgeOptions = Pick<
  EdgeOptions,
  "db" | "dbDeadlineMs" | "health" | "log" | "baseUrl" | "delivery" | "keyBrand" | "rateLimiter" | "maxBodyBytes"
> & {
  /** Host names (with port) requests may name besides the base URL's; loopback ones are added for a loopback base. */
  allowedHosts?: readonly string[];
};

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const ALLOW = "POST, OPTIONS";

/**
 * The 401's Bearer challenge (RFC 6750 3). It names no resource metadata: this endpoint takes design agent tokens,
 * which an operator creates, and no authorization server issues them, so there is nothing for a host to discover.
 */
function challenge(tokenSent: boolean): string {
  const realm = 'Bearer realm="Shelf design MCP"';
  return tokenSent
    ? `${realm}, error="invalid_token", error_description="This endpoint takes design agent tokens only."`
    : realm;
}

/**
 * The design MCP endpoint (`POST /mcp` on the design host, role `read`): stateless Streamable HTTP with one JSON
 * answer per request, design agent tokens only. Its tools are the design API's reads and writes, each calling the
 * procedure its REST route calls; a token sees the tools its roles allow, and each call is checked again.
 */
export function createDesignMcpEdge(options: DesignMcpEdgeOptions): Edge {
  const byName = new Map(designTools.map((tool) => [tool.name, tool]));
  const listed = designTools.map((tool) => ({
    tool,
    entry: {
      name: tool.name,
      title: tool.title,
      description: `${tool.description} Needs the ${tool.role} role.`,
      inputSchema: toolSchema(tool.input, "input"),
      ...(tool.output ? { outputSchema: toolSchema(tool.output, "output") } : {}),
      annotations: tool.annotations,
    },
  }));
  const dbDeadlineMs = options.dbDeadlineMs ?? 6000;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const base = new URL(options.baseUrl);
  const hosts = allowedHostsFor(base, options.allowedHosts ?? []);
  const { log } = options;

  async function handle(request: EdgeRequest): Promise<EdgeResult> {
    const requestId = request.requestId ?? randomUUID();
    let result: EdgeResult;
    try {
      result = await dispatch(request, requestId);
    } catch (error) {
      result = failureResult(error, { log, health: options.health, requestId });
    }
    // Refusals in JSON-RPC's terms from the one error table, as on the account MCP (401 and 403 keep the contract's).
    result = asJsonRpcError(result);
    result.headers["x-request-id"] = requestId;
    result.headers["x-content-type-options"] = "nosniff";
    result.headers["cache-control"] ??= "no-store";
    result.route = `${request.method} ${DESIGN_MCP_PATH}`;
    return result;
  }

  async function dispatch(request: EdgeRequest, requestId: string): Promise<EdgeResult> {
    if (request.target.split("?", 1)[0] !== DESIGN_MCP_PATH) return errorResult("not_found", "No such endpoint.");
    // DNS rebinding: a page on another site reaching this server through a name that resolves to it.
    if (!sameOrigin(request, hosts, base)) return errorResult("forbidden_origin");
    if (request.method === "OPTIONS") return { status: 204, headers: { allow: ALLOW }, body: null };
    // Stateless: no server stream to open (GET) and no session to end (DELETE).
    if (request.method !== "POST") return errorResult("method_not_allowed", undefined, { allow: ALLOW });
    const unsupported = unsupportedProtocolVersion(request.header("mcp-protocol-version"));
    if (unsupported) return failureResult(unsupported, { log, health: options.health, requestId });
    if (options.health && !options.health.up) return unavailableResult();
    const credential = await withDeadline(
      resolveCredential(options.db, request.header("authorization"), designApiPolicy),
      dbDeadlineMs,
    );
    let caller: DesignCaller;
    try {
      // The endpoint's own role (contract section 4): read. Account keys and OAuth tokens are unknown here (401).
      caller = authorizeDesign({ role: "read" }, credential);
    } catch (error) {
      const refused = failureResult(error, { log, health: options.health, requestId });
      if (refused.status === 401) refused.headers["www-authenticate"] = challenge(credential.status !== "none");
      return refused;
    }
    const limited = await options.rateLimiter.consume(credentialKey(caller));
    const limitHeaders = {
      "x-ratelimit-limit": String(limited.limit),
      "x-ratelimit-remaining": String(limited.remaining),
    };
    if (!limited.allowed) {
      return errorResult("rate_limited", undefined, {
        ...limitHeaders,
        "retry-after": String(limited.retryAfterSeconds),
      });
    }
    const body = await readRpcMessage(request, maxBodyBytes);
    if (!body.ok) return body.result;
    const result = await fromResponse(await serve(request, body.message, caller, requestId));
    Object.assign(result.headers, limitHeaders);
    return result;
  }

  /** One SDK server and one stateless transport for this request, with the tools this token's roles allow. */
  async function serve(request: EdgeRequest, message: unknown, caller: DesignCaller, requestId: string) {
    const server = new Server(
      { name: "shelf-design", title: "Shelf design host", version: "1.0.0" },
      {
        capabilities: { tools: { listChanged: false } },
        instructions:
          "The design host's gallery (screens of the product's own apps, per viewport, language and signed-in state, with their page types, patterns, colors and fonts) and its design documents (versions drafted on a base, submitted, reviewed). Search with search_screens; get_taxonomy lists the names its filters take. Read a document before drafting on its latest_version.",
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: listed.filter(({ tool }) => caller.roles.has(tool.role)).map(({ entry }) => entry),
    }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const tool = byName.get(params.name);
      if (!tool) throw rpcFailure(ErrorCode.InvalidParams, `Unknown tool: ${params.name}.`);
      if (!caller.roles.has(tool.role)) {
        throw rpcFailure(
          ErrorCode.InvalidRequest,
          `The ${tool.name} tool needs the ${tool.role} role, which this token lacks.`,
          { required_role: tool.role },
        );
      }
      return callTool(tool, params.arguments ?? {}, caller, request, requestId);
    });
    return serveStateless(server, request, DESIGN_MCP_PATH, message);
  }

  async function callTool(
    tool: DesignTool,
    args: Record<string, unknown>,
    caller: DesignCaller,
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
      log,
    });
    return callProcedureTool({
      router: designRouter,
      path: tool.procedure,
      type: tool.annotations.readOnlyHint ? "query" : "mutation",
      ctx: context,
      input: () => (tool.toInput ? tool.toInput(args) : args),
      dbDeadlineMs,
      log,
      requestId,
      tool: tool.name,
      structured: (answer) => (tool.toOutput ? tool.toOutput(answer, args) : answer) as Record<string, unknown>,
    });
  }

  return {
    handle,
    owns: (path) => path === DESIGN_MCP_PATH,
    routes: new RouteTable([]),
    document: { openapi: "3.1.0", info: { title: "Shelf design MCP", version: "1" }, paths: {} },
    ready: async () => true,
    close: async () => {},
  };
}
