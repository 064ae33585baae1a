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

/** What the REST layer answers, before any server writes it: no stream, no copies. */
export type RestResult = {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
};

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): RestResult {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(body),
  };
}

export function domainErrorBody(code: DomainErrorCode, message?: string, details?: Record<string, unknown>) {
  return { message: message ?? domainErrors[code].message, error: code, ...details };
}

function hasIssues(value: unknown): value is { issues: Issue[] } {
  return typeof value === "object" && value !== null && Array.isArray((value as { issues?: unknown }).issues);
}

export function validationBody(errors: FieldErrors, message = "The given data was invalid."): ErrorBody {
  return { message, errors };
}

/** Maps whatever a procedure threw to the contract's status and body. Unknown errors are logged, never shown. */
export function errorToResponse(error: unknown): { status: number; body: ErrorBody } {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof DomainError)
    return { status: cause.status, body: domainErrorBody(cause.code, cause.message, cause.details) };
  if (cause instanceof ValidationError) return { status: 422, body: validationBody(cause.errors, cause.message) };
  if (error instanceof TRPCError) {
    if (error.code === "BAD_REQUEST" && hasIssues(error.cause)) {
      return { status: 422, body: validationBody(fieldErrors(error.cause.issues)) };
    }
    switch (error.code) {
      case "PARSE_ERROR":
        return { status: 422, body: validationBody({ body: ["The body is not valid JSON."] }) };
      case "NOT_FOUND":
        return { status: 404, body: domainErrorBody("not_found") };
      case "UNSUPPORTED_MEDIA_TYPE":
        return { status: 415, body: domainErrorBody("unsupported_media_type") };
      case "PAYLOAD_TOO_LARGE":
        return { status: 413, body: domainErrorBody("payload_too_large") };
    }
  }
  console.error("Unhandled API error", error);
  return { status: 500, body: domainErrorBody("internal_error") };
}
