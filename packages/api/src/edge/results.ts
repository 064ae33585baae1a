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
