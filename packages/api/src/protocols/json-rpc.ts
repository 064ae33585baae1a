import { type EdgeRequest, readBody } from "@shelf/server/edge/request";
import { type EdgeResult, type ErrorBody, jsonResult } from "@shelf/server/edge/results";
import { JSON_TYPE, parseClientJson, TOO_DEEP } from "@shelf/server/json-text";
import { type DomainErrorCode, domainErrors } from "../errors";

/**
 * One JSON-RPC message from the body: JSON (415 otherwise) within the size limit (413), parsed under the nesting
 * limit (422), each refusal a JSON-RPC error from the one error table. A batch is refused: the 2025-11-25 revision
 * has none, and one HTTP request is one call and one unit of the rate limit.
 */
export async function readRpcMessage(
  request: EdgeRequest,
  maxBodyBytes: number,
): Promise<{ ok: true; message: unknown } | { ok: false; result: EdgeResult }> {
  if (!JSON_TYPE.test(request.header("content-type") ?? "")) {
    return { ok: false, result: domainRpcError("unsupported_media_type") };
  }
  const read = await readBody(request, maxBodyBytes);
  if (!read.ok) {
    const result =
      read.reason === "too_large"
        ? domainRpcError("payload_too_large", `The request body is larger than ${maxBodyBytes} bytes.`)
        : domainRpcError("malformed_request", "The request body ended before it was complete.");
    return { ok: false, result };
  }
  const json = parseClientJson(read.bytes.toString("utf8"));
  if (!json.ok && json.reason === "too_deep") {
    return {
      ok: false,
      result: rpcErrorResult(422, rpcCodeOf("jsonrpc_invalid_request"), `Invalid request: the body ${TOO_DEEP}.`, {
        error: "jsonrpc_invalid_request",
      }),
    };
  }
  if (!json.ok) return { ok: false, result: domainRpcError("jsonrpc_parse_error") };
  if (Array.isArray(json.value)) {
    return {
      ok: false,
      result: domainRpcError(
        "jsonrpc_invalid_request",
        "Invalid request: JSON-RPC batches are not supported; send one message per request.",
      ),
    };
  }
  return { ok: true, message: json.value };
}

/** JSON-RPC's code for an error the table gives none: a server error (JSON-RPC 2.0 section 5.1). */
const RPC_SERVER_ERROR = -32000;

/** The JSON-RPC code of a domain error, from its row of the one error table. */
export function rpcCodeOf(code: string | undefined): number {
  const row = code === undefined ? undefined : (domainErrors as Record<string, { rpc?: number }>)[code];
  return row?.rpc ?? RPC_SERVER_ERROR;
}

/** A JSON-RPC error answer (no request id: the request was refused before it was read as a call). */
export function rpcErrorResult(
  status: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
): EdgeResult {
  return jsonResult(
    status,
    { jsonrpc: "2.0", error: { code, message, ...(data === undefined ? {} : { data }) }, id: null },
    headers,
  );
}

/** A domain error as an MCP endpoint answers it: the table's status and JSON-RPC code, the contract's code in data. */
export function domainRpcError(code: DomainErrorCode, message?: string, headers?: Record<string, string>): EdgeResult {
  return rpcErrorResult(
    domainErrors[code].status,
    rpcCodeOf(code),
    message ?? domainErrors[code].message,
    {
      error: code,
    },
    headers,
  );
}

/**
 * A refusal of an MCP endpoint in JSON-RPC's terms: the contract's body becomes a JSON-RPC error whose code is the
 * table's, with the contract's code (and a 422's field errors) in `data`; the status stays what the edge decided.
 * 401 and 403 keep the contract's body: clients read those from the status and the Bearer challenge, not the body.
 */
export function asJsonRpcError(result: EdgeResult): EdgeResult {
  if (result.status < 400 || result.status === 401 || result.status === 403) return result;
  if (typeof result.body !== "string") return result;
  let body: ErrorBody & { jsonrpc?: unknown };
  try {
    body = JSON.parse(result.body) as ErrorBody & { jsonrpc?: unknown };
  } catch {
    return result;
  }
  if (body.jsonrpc !== undefined) return result;
  const { message, error, errors, ...details } = body;
  const code = result.status === 422 ? -32600 : rpcCodeOf(error);
  const data = { ...(error === undefined ? {} : { error }), ...(errors === undefined ? {} : { errors }), ...details };
  return {
    ...result,
    body: JSON.stringify({ jsonrpc: "2.0", error: { code, message, data }, id: null }),
  };
}
