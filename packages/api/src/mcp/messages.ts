import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { DomainErrorCode } from "../errors";

/** What an MCP client sends as `Accept` (Streamable HTTP): JSON answers here, never a stream. */
export const MCP_ACCEPT = "application/json, text/event-stream";

/**
 * One JSON-RPC 2.0 message (a request, a notification, or a response to the server), never a batch; every field
 * optional as the contract declares them (5.2), the SDK's transport judging the message itself (400, `-32600`).
 */
export const JsonRpcMessage = z.looseObject({
  jsonrpc: z.literal("2.0").optional(),
  id: z.union([z.string(), z.number().int()]).optional(),
  method: z.string().min(1).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** The answer to a request: its result, or a JSON-RPC error (an unknown tool is -32602). */
export const JsonRpcAnswer = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .optional();

/** The refusals of every MCP endpoint's transport: the document lists them. */
export const TRANSPORT_ERRORS = [
  "forbidden_origin",
  "jsonrpc_parse_error",
  "jsonrpc_invalid_request",
  "mcp_protocol_version_unsupported",
  "not_acceptable",
] as const satisfies readonly DomainErrorCode[];

/** And those of an endpoint with sessions (the account MCP). */
export const SESSION_ERRORS = [
  "mcp_session_required",
  "mcp_session_not_found",
] as const satisfies readonly DomainErrorCode[];

/** A valid request to an MCP endpoint, for the security matrices' success rows: `initialize`. */
export function initializeExample() {
  return {
    headers: { accept: MCP_ACCEPT },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "matrix", version: "1" },
      },
    },
  };
}
