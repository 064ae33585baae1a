import { contentDisposition, type FileOutput, type PlainOutput } from "../plain";
import { contentRange, evaluateRange, ifRangeHolds, multipartRanges } from "./range";
import type { EdgeRequest } from "./request";
import { type EdgeResult, edgeErrorBody, jsonResult } from "./results";

/** A plain route's output (a redirect, a text, a stored file) as HTTP. */
export function plainResult(
  output: PlainOutput,
  status: number,
  headers: Record<string, string>,
  request: EdgeRequest,
): EdgeResult {
  switch (output.kind) {
    case "redirect":
      return {
        status: output.status,
        headers: { ...headers, location: output.location, "cache-control": output.cacheControl ?? "no-store" },
        body: null,
      };
    case "text":
      return {
        status,
        headers: {
          ...headers,
          "content-type": output.contentType,
          ...(output.cacheControl ? { "cache-control": output.cacheControl } : {}),
          ...(output.lastModified ? { "last-modified": output.lastModified.toUTCString() } : {}),
        },
        body: output.body,
      };
    case "file":
      return fileResult(output, headers, request);
  }
}

/** A stored file: validators, then ranges (RFC 9110 sections 13 and 14), streamed either way. */
function fileResult(file: FileOutput, base: Record<string, string>, request: EdgeRequest): EdgeResult {
  const etag = `"${file.etag}"`;
  const headers: Record<string, string> = {
    ...base,
    "content-type": file.contentType,
    "accept-ranges": "bytes",
    etag,
    "cache-control": file.cacheControl,
  };
  if (file.lastModified) headers["last-modified"] = file.lastModified.toUTCString();
  if (file.filename) headers["content-disposition"] = contentDisposition(file.filename);
  if (notModified(request, etag, file.lastModified)) return { status: 304, headers, body: null };

  const decision = ifRangeHolds(request.header("if-range"), etag, file.lastModified)
    ? evaluateRange(request.header("range"), file.size)
    : ({ kind: "full" } as const);
  if (decision.kind === "unsatisfiable") {
    return jsonResult(416, edgeErrorBody("range_not_satisfiable"), {
      "accept-ranges": "bytes",
      "content-range": `bytes */${file.size}`,
    });
  }
  if (decision.kind === "full") {
    return { status: 200, headers, body: { length: file.size, open: async () => file.open() } };
  }
  const [single] = decision.ranges;
  if (decision.ranges.length === 1 && single) {
    headers["content-range"] = contentRange(single, file.size);
    return {
      status: 206,
      headers,
      body: { length: single.end - single.start + 1, open: async () => file.open(single) },
    };
  }
  const multipart = multipartRanges(decision.ranges, file.size, file.contentType, file.open);
  headers["content-type"] = multipart.contentType;
  return { status: 206, headers, body: { length: multipart.length, open: multipart.open } };
}

/** If-None-Match (weak comparison), else If-Modified-Since (RFC 9110, 13.2.2). */
export function notModified(request: EdgeRequest, etag: string, lastModified: Date | null): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const ifNoneMatch = request.header("if-none-match");
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() === "*") return true;
    const opaque = etag.replace(/^W\//, "");
    return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === opaque);
  }
  const since = Date.parse(request.header("if-modified-since") ?? "");
  return lastModified !== null && !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}
