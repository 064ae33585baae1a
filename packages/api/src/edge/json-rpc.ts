import { JSON_TYPE, parseClientJson, TOO_DEEP } from "../json-text";
import { type EdgeRequest, readBody } from "./request";
import { domainRpcError, type EdgeResult, rpcCodeOf, rpcErrorResult } from "./results";

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
