import { Readable } from "node:stream";
import type { Edge } from "./pipeline";
import type { EdgeRequest } from "./request";
import { type EdgeResult, isStream } from "./results";

/** A fetch `Request` as the edge reads it (Next route handlers, tests). */
export function fromFetch(request: Request, clientAddress?: string): EdgeRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    target: `${url.pathname}${url.search}`,
    header: (name) => request.headers.get(name) ?? undefined,
    body: request.body as AsyncIterable<Uint8Array> | null,
    clientAddress,
  };
}

/** An edge result as a fetch `Response`; a streamed body stays a stream. */
export async function toResponse(result: EdgeResult): Promise<Response> {
  const { body } = result;
  const payload = isStream(body)
    ? (Readable.toWeb(await body.open()) as ReadableStream<Uint8Array>)
    : (body as BodyInit | null);
  return new Response(payload, { status: result.status, headers: result.headers });
}

/**
 * A fetch-style handler over an edge, for a Next route handler or any server that speaks `Request`/`Response`.
 * Next does not expose the peer address: pass the one the server in front knows, or rate limits without a key
 * fall back to one bucket for every client.
 */
export async function handleFetch(edge: Edge, request: Request, clientAddress?: string): Promise<Response> {
  return toResponse(await edge.handle(fromFetch(request, clientAddress)));
}
