import { createHash } from "node:crypto";
import { notModified } from "./file-answer";
import type { EdgeRequest } from "./request";
import { bodyLength, type EdgeResult } from "./results";

/**
 * The last touches every answer gets: a weak ETag on small GET bodies (devices revalidate the library and update
 * checks on every launch) unless the route said `no-store`, 304 when it still holds, `Content-Length`, and no body for HEAD.
 */
export function finish(request: EdgeRequest, result: EdgeResult): EdgeResult {
  const { headers } = result;
  headers["x-content-type-options"] = "nosniff";
  if (result.status >= 400) headers["cache-control"] = "no-store";
  const isRead = request.method === "GET" || request.method === "HEAD";
  // An answer that must not be stored (one signed anew for each request) is never the same twice: no validator.
  if (
    isRead &&
    result.status === 200 &&
    headers.etag === undefined &&
    typeof result.body === "string" &&
    headers["cache-control"] !== "no-store"
  ) {
    // Encoded once: the hash and the socket take the same bytes.
    const bytes = Buffer.from(result.body);
    result.body = bytes;
    headers.etag = `W/"${createHash("sha1").update(bytes).digest("base64url")}"`;
    headers["cache-control"] ??= "private, no-cache";
    const lastModified = headers["last-modified"] ? new Date(headers["last-modified"]) : null;
    if (notModified(request, headers.etag, lastModified)) {
      result.status = 304;
      result.body = null;
    }
  }
  if (result.status !== 204 && result.status !== 304) headers["content-length"] = String(bodyLength(result.body));
  if (request.method === "HEAD") result.body = null;
  return result;
}
