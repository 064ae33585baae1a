import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { isPumpable } from "../storage/pump";
import { edgeErrors } from "./errors";
import type { EdgeRequest } from "./request";
import { bodyLength, type EdgeResult, edgeErrorBody, errorToResponse, isStream, jsonResult } from "./results";

/** A Node request as the edge reads it. The target must already be in origin form (see `originForm`). */
export function fromNode(req: IncomingMessage, requestId?: string): EdgeRequest {
  const method = req.method ?? "GET";
  return {
    requestId,
    method,
    target: req.url ?? "/",
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    body: method === "GET" || method === "HEAD" ? null : req,
    clientAddress: req.socket.remoteAddress,
  };
}

/**
 * Writes an edge result to a Node response. A streamed body is opened before the status line goes out, so a file
 * that cannot be opened is still an honest JSON error; after that, backpressure holds memory flat, and a client
 * that goes away closes the file.
 */
export async function writeNode(
  res: ServerResponse,
  result: EdgeResult,
  onOpenError: (error: unknown) => void = () => {},
): Promise<void> {
  const { body } = result;
  if (!isStream(body)) {
    const headers = { ...result.headers };
    if (body !== null && headers["content-length"] === undefined) headers["content-length"] = String(bodyLength(body));
    res.writeHead(result.status, headers);
    res.end(body ?? undefined);
    return;
  }
  let stream: Readable;
  try {
    stream = await body.open();
  } catch (error) {
    const mapped = errorToResponse(error);
    if (mapped.unexpected) onOpenError(error);
    return writeNode(res, jsonResult(mapped.status, mapped.body));
  }
  res.writeHead(result.status, result.headers);
  try {
    if (isPumpable(stream)) await stream.pumpTo(res);
    else await pipeline(stream, res);
  } catch {
    // The client went away, or the storage failed mid-file: the connection is cut, which the client can see.
    res.destroy();
  } finally {
    stream.destroy();
  }
}

/**
 * The request target in origin form. An absolute-form target (`GET http://host/path`, RFC 9112 3.2.2) is taken as
 * its path and query; `*` stays `*`; anything else is null.
 */
export function originForm(target: string): string | null {
  if (target.startsWith("/") || target === "*") return target;
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return null;
  }
}

/** A syntactically valid Host header (RFC 9110 7.2): a registered name, IPv4 or bracketed IPv6, and a port. */
export function isValidHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  return /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(:\d{1,5})?$/.test(host);
}

const reasons: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/**
 * Node's own protocol errors (bad header bytes, headers too large, Content-Length with Transfer-Encoding) answered
 * in the contract's JSON instead of an empty 400.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const code =
    error.code === "HPE_HEADER_OVERFLOW"
      ? "header_fields_too_large"
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "request_timeout"
        : "malformed_request";
  const { status } = edgeErrors[code];
  const body = JSON.stringify(edgeErrorBody(code));
  // Every answer has a request id, as the document promises, even one made before there was a request.
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: ${randomUUID()}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
