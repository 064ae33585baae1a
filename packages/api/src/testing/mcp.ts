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
