/** A row of an error table: the HTTP status and default message of a code, and its JSON-RPC code if it has one. */
export type ErrorRow = { status: number; message: string; rpc?: number };

/**
 * The errors the edge itself answers, before or around any procedure: a malformed request, an unknown path, a body
 * too large, a limit, an outage. A host's own table (the API's `domainErrors`) starts with these rows, so a code
 * means one thing whoever answers it. `rpc`: the JSON-RPC error code (JSON-RPC 2.0 section 5.1) a JSON-RPC endpoint
 * answers with.
 */
export const edgeErrors = {
  malformed_request: { status: 400, message: "The request is malformed.", rpc: -32600 },
  not_found: { status: 404, message: "Not found." },
  method_not_allowed: { status: 405, message: "Method not allowed." },
  request_timeout: { status: 408, message: "The request took too long to arrive." },
  payload_too_large: { status: 413, message: "The request body is too large.", rpc: -32600 },
  unsupported_media_type: { status: 415, message: "Send the body as application/json.", rpc: -32600 },
  range_not_satisfiable: { status: 416, message: "No requested range lies within the file." },
  header_fields_too_large: { status: 431, message: "The request headers are too large." },
  rate_limited: { status: 429, message: "Too many requests." },
  internal_error: { status: 500, message: "Internal server error.", rpc: -32603 },
  service_unavailable: {
    status: 503,
    message: "The service cannot reach its database right now; try again in a few seconds.",
  },
} as const satisfies Record<string, ErrorRow>;

export type EdgeErrorCode = keyof typeof edgeErrors;
