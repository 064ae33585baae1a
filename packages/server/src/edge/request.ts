import type { FieldErrors } from "../errors";
import { type EdgeResult, errorResult } from "./results";

/**
 * What the edge needs of a request, whichever server received it: Node's `http` (the custom server) or a fetch
 * `Request` (Next route handlers, tests). Building a fetch `Request` costs more than the work of a small endpoint,
 * and cannot even represent some methods (`TRACE`), so the edge reads this instead.
 */
export type EdgeRequest = {
  method: string;
  /** The request target in origin form: path and query, still percent-encoded. */
  target: string;
  /** A header's value (several values joined by ", "), by lowercase name. */
  header: (name: string) => string | undefined;
  /** The body, or null when the request has none. */
  body: AsyncIterable<Uint8Array> | null;
  /** The peer address of the connection. */
  clientAddress: string | undefined;
  /** Set by the server in front, which logs the request under it; generated here otherwise. */
  requestId?: string;
};

export type BodyRead = { ok: true; bytes: Buffer } | { ok: false; reason: "too_large" | "aborted" };

/**
 * Reads a body up to `limit` bytes; past it, stops reading and says so, so nothing unbounded is ever buffered. A
 * client that goes away mid-body (its socket reset) is `aborted`: its error code (ECONNRESET) says nothing about the
 * database, and must not reach the code that judges the database's health.
 */
export async function readBody(request: EdgeRequest, limit: number): Promise<BodyRead> {
  const declared = Number(request.header("content-length"));
  if (Number.isFinite(declared) && declared > limit) return { ok: false, reason: "too_large" };
  if (!request.body) return { ok: true, bytes: Buffer.alloc(0) };
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of request.body) {
      length += chunk.byteLength;
      if (length > limit) return { ok: false, reason: "too_large" };
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  } catch {
    return { ok: false, reason: "aborted" };
  }
  return { ok: true, bytes: Buffer.concat(chunks, length) };
}

/**
 * The path and query of a target, or null when it is not in origin form. The base is joined as text: `new URL`
 * with a base would read a target like `//host/path` as another host.
 */
export function parseTarget(target: string): URL | null {
  if (!target.startsWith("/")) return null;
  try {
    return new URL(`http://edge.invalid${target}`);
  } catch {
    return null;
  }
}

/**
 * Whether the raw path has a `.` or `..` segment, written plainly or percent-encoded. URL parsing would quietly
 * resolve them (`a/%2e%2e/b` is `b`); the edge refuses them instead, so no path ever means more than it says.
 */
export function hasDotSegments(target: string): boolean {
  const query = target.indexOf("?");
  const path = query === -1 ? target : target.slice(0, query);
  return path.split("/").some((segment) => {
    const plain = segment.replace(/%2e/gi, ".");
    return plain === "." || plain === "..";
  });
}

/** Whether every percent-escape of the path and query decodes (`%E0%A4%A` does not). */
export function isWellEncoded(url: URL): boolean {
  try {
    decodeURIComponent(url.pathname);
    decodeURIComponent(url.search.replace(/\+/g, " "));
    return true;
  } catch {
    return false;
  }
}

/**
 * The target as a URL the edge can read, or the answer that refuses it: 400 for one that does not parse or whose
 * percent-encoding does not decode, 404 for one with `.` or `..` segments, which the edge never resolves.
 */
export function readTarget(target: string): { ok: true; url: URL } | { ok: false; result: EdgeResult } {
  const url = parseTarget(target);
  if (!url || !isWellEncoded(url)) {
    return { ok: false, result: errorResult("malformed_request", "The URL has malformed percent-encoding.") };
  }
  if (hasDotSegments(target)) {
    const message = "No such path: the URL has . or .. segments, which are never resolved.";
    return { ok: false, result: errorResult("not_found", message) };
  }
  return { ok: true, url };
}

/** The other body types as the `Content-Type` header names them (JSON's is in json-text.ts). */
export const MULTIPART_TYPE = /^multipart\/form-data\s*;/i;
export const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/** Strict UTF-8: malformed bytes are refused, never replaced. */
export const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The fields of a URL-encoded form body; a field given twice is refused (RFC 6749 3.1), as is text not in UTF-8. */
export function parseForm(
  bytes: Uint8Array,
): { ok: true; fields: Record<string, string> } | { ok: false; errors: FieldErrors } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, errors: { body: ["must be a form in UTF-8"] } };
  }
  const fields: Record<string, string> = Object.create(null);
  const errors: FieldErrors = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(fields, name)) errors[name] = ["must be given once"];
    fields[name] = value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, fields };
}
