import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type CallToolResult, McpError, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { databaseUnavailable, withDeadline } from "@shelf/db";
import type { EdgeRequest } from "@shelf/server/edge/request";
import { type EdgeResult, errorToResponse } from "@shelf/server/edge/results";
import { JsonText } from "@shelf/server/json-text";
import type { Logger } from "@shelf/server/log";
import { type AnyRouter, callTRPCProcedure } from "@trpc/server";
import type { BaseContext } from "../context";
import { DomainError, unwrapTrpcError } from "../errors";

/*
 * What every MCP endpoint of this project does alike over HTTP (the account MCP, the design MCP): how a
 * transport-level refusal is answered, and how the SDK's transport is handed a request and its answer taken back.
 * Which hosts and origins may reach an endpoint (the kit's edge/hosts.ts) and how a JSON-RPC message is read from
 * the body (protocols/json-rpc.ts) are settled before any procedure runs.
 */

/**
 * A JSON-RPC error for the SDK's server to send, its message as written. The SDK's `McpError` puts "MCP error
 * <code>: " before the message, and the SDK's client puts it there again when it reads the answer, so a person read
 * the prefix twice.
 */
export function rpcFailure(code: number, message: string, data?: unknown): McpError {
  const error = new McpError(code, message, data);
  error.message = message;
  return error;
}

/**
 * An `MCP-Protocol-Version` this server does not speak, refused alike by every MCP endpoint here: 400 on every request,
 * `initialize` included (the SDK's transport skips its own check there), naming the versions it speaks.
 */
export function unsupportedProtocolVersion(version: string | undefined): DomainError | undefined {
  if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return new DomainError(
    "mcp_protocol_version_unsupported",
    `Unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}.`,
    { supported: SUPPORTED_PROTOCOL_VERSIONS },
  );
}

export function toolError(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** The request as the SDK's web-standard transport reads it (the body is handed over already parsed). */
export function toWebRequest(request: EdgeRequest, path: string): Request {
  const headers = new Headers();
  for (const name of ["accept", "content-type", "mcp-protocol-version", "accept-language"]) {
    const value = request.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  return new Request(`http://mcp.invalid${path}`, { method: "POST", headers });
}

export async function fromResponse(response: Response): Promise<EdgeResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const text = await response.text();
  return { status: response.status, headers, body: text.length > 0 ? text : null };
}

export function safeJson(body: EdgeResult["body"]): unknown {
  if (typeof body !== "string") return null;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/**
 * One SDK server on one stateless transport for one request, answered as JSON: the server is built per request (its
 * tools are the caller's), so nothing of it outlives the request.
 */
export async function serveStateless(server: Server, request: EdgeRequest, path: string, message: unknown) {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(toWebRequest(request, path), { parsedBody: message });
  } finally {
    await server.close();
  }
}

/**
 * A tool's call of a procedure, exactly as its REST route calls it (the procedure's own checks run again), within
 * the database deadline: the answer (or what `structured` makes of it) as text and, when it is an object, as
 * `structuredContent`; what the caller got wrong as a tool error in the contract's body; a database that cannot
 * answer as the edge's 503; anything else logged and answered as a tool error.
 */
export async function callProcedureTool(options: {
  router: AnyRouter;
  path: string;
  type: "query" | "mutation";
  ctx: BaseContext;
  input: () => unknown;
  dbDeadlineMs: number;
  log: Logger;
  requestId: string;
  tool: string;
  structured?: (answer: unknown) => unknown;
}): Promise<CallToolResult> {
  try {
    const output = await withDeadline(
      callTRPCProcedure({
        router: options.router,
        path: options.path,
        type: options.type,
        ctx: options.ctx,
        getRawInput: async () => options.input(),
        signal: undefined,
        batchIndex: 0,
      }),
      options.dbDeadlineMs,
    );
    const answer = output instanceof JsonText ? JSON.parse(output.text) : output;
    const structured = options.structured ? options.structured(answer) : answer;
    // The answer as text too, for clients older than `structuredContent` (2025-06-18): as serialised, when it is.
    const text =
      structured === answer && output instanceof JsonText
        ? output.text
        : structured === undefined
          ? "{}"
          : JSON.stringify(structured);
    if (structured === null || typeof structured !== "object" || Array.isArray(structured)) {
      return { content: [{ type: "text", text }] };
    }
    return { content: [{ type: "text", text }], structuredContent: structured as Record<string, unknown> };
  } catch (error) {
    // A refusal (a domain error, an invalid input) is the tool's answer; anything else is a fault.
    const mapped = errorToResponse(unwrapTrpcError(error));
    if (!mapped.unexpected) return toolError(mapped.body);
    if (databaseUnavailable(error)) throw error;
    options.log.error({ reqId: options.requestId, err: error, tool: options.tool }, "MCP tool failed");
    return toolError({ message: "The tool failed unexpectedly.", error: "internal_error" });
  }
}
