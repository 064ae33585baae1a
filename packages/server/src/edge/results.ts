import type { Readable } from "node:stream";
import { CodedError, type FieldErrors, ValidationError } from "../errors";
import { type EdgeErrorCode, edgeErrors } from "./errors";

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

/** What a procedure may set on the HTTP response; a nested object, because middleware copies its context. */
export type ResponseState = {
  headers: Record<string, string>;
  /** The success status, when the procedure decides it (one of the route's `successStatus` or `alternateSuccess`). */
  status?: number;
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

/** The contract's error body: `{message, error}` and any extra fields. */
export function codedErrorBody(code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  return { message, error: code, ...details };
}

/** One of the edge's own errors as its body, with the table's message unless another is given. */
export function edgeErrorBody(code: EdgeErrorCode, message?: string): ErrorBody {
  return codedErrorBody(code, message ?? edgeErrors[code].message);
}

/** One of the edge's own errors as an answer. */
export function errorResult(code: EdgeErrorCode, message?: string, headers?: Record<string, string>): EdgeResult {
  return jsonResult(edgeErrors[code].status, edgeErrorBody(code, message), headers);
}

export function validationBody(errors: FieldErrors, message = "The given data was invalid."): ErrorBody {
  return { message, errors };
}

/**
 * Maps whatever was thrown to the contract's status and body: a coded error as its table says, field errors as 422,
 * anything else as a 500 (`unexpected`: a bug or an outage). A host whose framework wraps what its code threw
 * unwraps it first (the pipeline's `unwrapError`).
 */
export function errorToResponse(error: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  if (error instanceof CodedError) {
    return { status: error.status, body: codedErrorBody(error.code, error.message, error.details), unexpected: false };
  }
  if (error instanceof ValidationError) {
    return { status: 422, body: validationBody(error.errors, error.message), unexpected: false };
  }
  return { status: 500, body: edgeErrorBody("internal_error"), unexpected: true };
}
