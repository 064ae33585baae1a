import type { Readable } from "node:stream";
import { TRPCError } from "@trpc/server";
import {
  DomainError,
  type DomainErrorCode,
  domainErrors,
  type FieldErrors,
  fieldErrors,
  type Issue,
  ValidationError,
} from "../errors";

export type ErrorBody = { message: string; error?: string; errors?: FieldErrors; [extra: string]: unknown };

/** A body too large to hold: its exact length, and how to open it once the answer is sure to be sent. */
export type EdgeStream = { length: number; open: () => Promise<Readable> };

/** What the edge answers, before any server writes it. Header names are lowercase. */
export type EdgeResult = {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | EdgeStream | null;
  /** The route that answered (`GET /api/products/{product}`), for logs and metrics; unset for unknown paths. */
  route?: string;
};

export function isStream(body: EdgeResult["body"]): body is EdgeStream {
  return body !== null && typeof body === "object" && !(body instanceof Uint8Array);
}

/** The length the body will have on the wire (HEAD answers announce it too). */
export function bodyLength(body: EdgeResult["body"]): number {
  if (body === null) return 0;
  if (typeof body === "string") return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return body.length;
}

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): EdgeResult {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(body),
  };
}

export function domainErrorBody(code: DomainErrorCode, message?: string, details?: Record<string, unknown>) {
  return { message: message ?? domainErrors[code].message, error: code, ...details };
}

export function errorResult(code: DomainErrorCode, message?: string, headers?: Record<string, string>): EdgeResult {
  return jsonResult(domainErrors[code].status, domainErrorBody(code, message), headers);
}

export function validationBody(errors: FieldErrors, message = "The given data was invalid."): ErrorBody {
  return { message, errors };
}

function hasIssues(value: unknown): value is { issues: Issue[] } {
  return typeof value === "object" && value !== null && Array.isArray((value as { issues?: unknown }).issues);
}

/** Maps whatever a procedure threw to the contract's status and body; `unexpected` says it was a bug or an outage. */
export function errorToResponse(error: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof DomainError)
    return { status: cause.status, body: domainErrorBody(cause.code, cause.message, cause.details), unexpected: false };
  if (cause instanceof ValidationError)
    return { status: 422, body: validationBody(cause.errors, cause.message), unexpected: false };
  if (error instanceof TRPCError && error.code === "BAD_REQUEST" && hasIssues(error.cause)) {
    return { status: 422, body: validationBody(fieldErrors(error.cause.issues)), unexpected: false };
  }
  return { status: 500, body: domainErrorBody("internal_error"), unexpected: true };
}

/** What an OAuth client reads for the edge's own refusals (RFC 6749 5.2 has no code for most of them). */
const OAUTH_CODES: Partial<Record<string, string>> = {
  malformed_request: "invalid_request",
  payload_too_large: "invalid_request",
  unsupported_media_type: "invalid_request",
  method_not_allowed: "invalid_request",
  not_found: "invalid_request",
  rate_limited: "slow_down",
  internal_error: "server_error",
  service_unavailable: "temporarily_unavailable",
};

/**
 * A refusal of an authorization server endpoint in OAuth's terms: `error` an OAuth code, `error_description` beside
 * the contract's `message`, an invalid input 400 `invalidInput` (its field errors kept). The status stays what the
 * edge decided (413 for a body over the limit, 429, 503), except 422 and 415, which OAuth clients know as 400 (RFC
 * 6749 5.2 and RFC 7591 3.2.2 give a request in the wrong form no status of its own).
 */
export function asOAuthError(result: EdgeResult, invalidInput: string): EdgeResult {
  if (result.status < 400 || typeof result.body !== "string") return result;
  let body: ErrorBody;
  try {
    body = JSON.parse(result.body) as ErrorBody;
  } catch {
    return result;
  }
  if (typeof body.error_description === "string") return result;
  const fields = Object.entries(body.errors ?? {});
  const description =
    fields.length > 0 ? fields.map(([field, messages]) => `${field}: ${messages.join(", ")}`).join("; ") : body.message;
  const redirect = fields.length > 0 && fields.every(([field]) => field.startsWith("redirect_uris"));
  const error =
    result.status === 422
      ? redirect && invalidInput === "invalid_client_metadata"
        ? "invalid_redirect_uri"
        : invalidInput
      : (OAUTH_CODES[body.error ?? ""] ?? body.error ?? "invalid_request");
  return {
    ...result,
    status: result.status === 422 || result.status === 415 ? 400 : result.status,
    body: JSON.stringify({ ...body, error, error_description: description }),
  };
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
