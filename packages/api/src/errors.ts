import { edgeErrors } from "@shelf/server/edge/errors";
import { codedErrorBody, type EdgeResult, jsonResult } from "@shelf/server/edge/results";
import { CodedError, fieldErrors, type Issue, ValidationError } from "@shelf/server/errors";
import { TRPCError } from "@trpc/server";
import type { z } from "zod";

export { type FieldErrors, fieldErrors, type Issue, ValidationError } from "@shelf/server/errors";

/**
 * Every error the domain can raise, with the HTTP status and default message the edge answers with.
 * The `error` field of the contract's body is the code itself. `rpc`: the JSON-RPC error code an MCP endpoint
 * answers it with (JSON-RPC 2.0 section 5.1; -32000, a server error, when a row names none); the OAuth code an
 * authorization server endpoint answers with is in `protocols/oauth.ts` (`OAUTH_CODES`). The first rows are the
 * edge's own (`edgeErrors`), so a code means one thing whoever answers it.
 */
export const domainErrors = {
  // The edge's own answers (a malformed request, an unknown path, a body too large, a limit, an outage).
  ...edgeErrors,
  // The MCP endpoints' transport (Streamable HTTP, JSON-RPC 2.0).
  jsonrpc_parse_error: { status: 400, message: "Parse error: the body is not JSON.", rpc: -32700 },
  jsonrpc_invalid_request: {
    status: 400,
    message: "Invalid request: the body is not one JSON-RPC 2.0 message.",
    rpc: -32600,
  },
  mcp_session_required: {
    status: 400,
    message: "Mcp-Session-Id header is required: send initialize first.",
    rpc: -32000,
  },
  mcp_protocol_version_unsupported: {
    status: 400,
    message: "This MCP-Protocol-Version is not one this server speaks.",
    rpc: -32000,
  },
  mcp_session_not_found: {
    status: 404,
    message: "Session not found: it ended or expired. Send initialize to start a new one.",
    rpc: -32001,
  },
  not_acceptable: {
    status: 406,
    message: "Not Acceptable: the client must accept both application/json and text/event-stream.",
    rpc: -32000,
  },
  // Device sign-in polling answers, with the error codes of RFC 8628 section 3.5.
  authorization_pending: {
    status: 400,
    message: "The person has not approved this sign-in yet: poll again after the interval.",
  },
  slow_down: { status: 400, message: "Polling too fast: wait 5 seconds longer between polls from now on." },
  access_denied: { status: 400, message: "The person denied this sign-in." },
  expired_token: { status: 400, message: "The device code has expired: start the sign-in again." },
  invalid_grant: {
    status: 400,
    message: "The code or token is unknown, expired, another client's, or was already used.",
  },
  // The authorization server's answers, with the error codes of RFC 6749 5.2, RFC 7591 3.2.2 and RFC 8707.
  invalid_request: { status: 400, message: "The OAuth request is missing a parameter or is malformed." },
  invalid_client: { status: 401, message: "The client_id is not one this server registered or knows." },
  unauthorized_client: { status: 400, message: "This client may not use this grant." },
  unsupported_grant_type: { status: 400, message: "This grant_type is not supported." },
  unsupported_response_type: { status: 400, message: "Only the authorization code flow (response_type=code)." },
  invalid_scope: { status: 400, message: "A requested scope is unknown or more than the grant holds." },
  invalid_target: { status: 400, message: "This server issues tokens only for its own resource." },
  invalid_redirect_uri: { status: 400, message: "A redirect URI cannot be registered." },
  invalid_client_metadata: { status: 400, message: "The client metadata cannot be registered." },
  server_error: { status: 500, message: "The authorization server failed; try again." },
  temporarily_unavailable: {
    status: 503,
    message: "The authorization server cannot reach its database right now; try again in a few seconds.",
  },
  missing_api_key: { status: 401, message: "An API key is required: send it as Authorization: Bearer <key>." },
  invalid_api_key: { status: 401, message: "The API key is unknown, revoked or expired." },
  missing_api_key_ability: { status: 403, message: "The API key lacks the ability this endpoint needs." },
  forbidden_origin: {
    status: 403,
    message: "The request's Host or Origin is not this server's (DNS rebinding protection).",
  },
  product_entitlement_required: { status: 403, message: "This account is not entitled to the product." },
  product_api_key_scope_required: { status: 403, message: "The API key is scoped to another product." },
  version_update_window_expired: { status: 403, message: "The update window for this product has ended." },
  download_link_invalid: {
    status: 403,
    message: "The download link is not valid: ask the API for a new one (install plan or release download).",
  },
  download_link_expired: {
    status: 403,
    message: "The download link has expired: ask the API for a new one (install plan or release download).",
  },
  missing_design_role: { status: 403, message: "The design token lacks the role this endpoint needs." },
  review_of_own_version: {
    status: 403,
    message: "A version is reviewed by another agent than the one that wrote it (tokens of one name are one agent).",
  },
  reset_link_invalid: {
    status: 400,
    message: "This password reset link is unknown, has expired or was already used: ask for a new one.",
  },
  email_link_invalid: {
    status: 400,
    message: "This email link is unknown, has expired, was already used or was replaced by a newer one.",
  },
  install_not_available: { status: 404, message: "There is nothing to install for this product." },
  order_not_found: { status: 404, message: "Order not found." },
  api_key_limit_reached: { status: 409, message: "No free key slot: revoke a key first." },
  device_limit_reached: {
    status: 409,
    message: "Every device seat of this product is taken: release a device to activate this one.",
  },
  conflict: { status: 409, message: "The request conflicts with the current state." },
  withdrawal_already_requested: { status: 409, message: "A withdrawal from this order was already requested." },
  stale_base_version: {
    status: 409,
    message: "base_version is not the document's newest version: write on the newest version (latest_version).",
  },
  collection_locked: {
    status: 409,
    message: "Another collect run holds the collection lock: wait until its lease ends (run.lease_expires_at).",
  },
  run_not_open: {
    status: 409,
    message: "The collect run is no longer open: it was submitted or ended failed, and takes nothing more.",
  },
  capture_key_taken: {
    status: 409,
    message: "This run already has a capture under this key, with another image.",
  },
} as const satisfies Record<string, { status: number; message: string; rpc?: number }>;

export type DomainErrorCode = keyof typeof domainErrors;

export class DomainError extends CodedError {
  readonly code: DomainErrorCode;
  readonly status: number;
  /** Extra fields merged into the error body (e.g. a device list for a 409). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: DomainErrorCode, message?: string, details?: Record<string, unknown>) {
    // An expected outcome, not a bug: no stack trace to capture (it was 5 % of the 401 path's CPU).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? domainErrors[code].message);
    Error.stackTraceLimit = limit;
    this.name = "DomainError";
    this.code = code;
    this.status = domainErrors[code].status;
    this.details = details;
  }
}

/** A domain error as the edge answers it: the table's status, the contract's body. */
export function domainErrorResult(
  code: DomainErrorCode,
  message?: string,
  headers?: Record<string, string>,
): EdgeResult {
  const row = domainErrors[code];
  return jsonResult(row.status, codedErrorBody(code, message ?? row.message), headers);
}

function hasIssues(value: unknown): value is { issues: Issue[] } {
  return typeof value === "object" && value !== null && Array.isArray((value as { issues?: unknown }).issues);
}

/**
 * What a procedure threw, out of tRPC's wrapper, for the edge's error table: a domain or validation error as it was
 * thrown, an input that failed its schema as 422 field errors, anything else as it is (answered 500).
 */
export function unwrapTrpcError(error: unknown): unknown {
  if (!(error instanceof TRPCError)) return error;
  const { cause } = error;
  if (cause instanceof CodedError || cause instanceof ValidationError) return cause;
  if (error.code === "BAD_REQUEST" && hasIssues(cause)) return new ValidationError(fieldErrors(cause.issues));
  return error;
}

/** Parses a service's input with its zod schema; failures become the contract's 422 field errors. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError(fieldErrors(parsed.error.issues));
  return parsed.data;
}

/** Whether a failed statement broke the named unique index (drizzle wraps the driver's error in `cause`). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code, constraint_name } = current as Error & { code?: string; constraint_name?: string };
    if (code === "23505") return constraint_name === constraint;
  }
  return false;
}

const trpcCodeForStatus: Record<number, TRPCError["code"]> = {
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};

/** A domain error carried through tRPC, so createCaller users see the right tRPC code and the cause. */
export function toTrpcError(error: DomainError | ValidationError): TRPCError {
  const code =
    error instanceof DomainError
      ? (trpcCodeForStatus[error.status] ?? "INTERNAL_SERVER_ERROR")
      : "UNPROCESSABLE_CONTENT";
  return new TRPCError({ code, message: error.message, cause: error });
}
