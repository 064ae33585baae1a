import { handleFetch } from "@shelf/server/edge/fetch";
import type { Edge } from "@shelf/server/edge/pipeline";
/** An MCP client's first message, as a hand-written client (curl) sends it. */
export const MCP_INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
};

/**
 * What an MCP client's POST carries: the JSON-RPC message (an object, or text as it is), the JSON content type, both
 * kinds of answer accepted, and `headers` (a token, a host).
 */
export function mcpPost(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

/**
 * A fetch that the edge answers, as from `address`: the host header is the URL's, as a real client sends it. The edge
 * is asked for at each call, so a test file can make it in `beforeAll`.
 */
export function edgeFetcher(edge: () => Edge, address: string) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    headers.set("host", new URL(request.url).host);
    return handleFetch(edge(), new Request(request, { headers }), address);
  };
}
