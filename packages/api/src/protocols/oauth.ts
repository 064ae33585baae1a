import type { EdgeResult, ErrorBody } from "@shelf/server/edge/results";
import type { ApiProtocol } from "../api-edge";

/** Endpoints any browser may call (the authorization server's): no cookie is read, so any origin may. */
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-allow-methods": "GET, POST, OPTIONS",
};

/**
 * The authorization server's endpoints (`meta.oauth`) over the edge: open to any origin, every refusal in OAuth's
 * error shape (`asOAuthError`), an invalid input as the route's own OAuth code.
 */
export const oauthProtocol: ApiProtocol = {
  speaks: (route) => route.meta.oauth !== undefined,
  wrap: (result, { route }) => {
    Object.assign(result.headers, CORS);
    return asOAuthError(result, route.meta.oauth?.invalidInput ?? "invalid_request");
  },
};

/** What an OAuth client reads for the edge's own refusals (RFC 6749 5.2 has no code for most of them). */
const OAUTH_CODES: Partial<Record<string, string>> = {
  malformed_request: "invalid_request",
  payload_too_large: "invalid_request",
  unsupported_media_type: "invalid_request",
  method_not_allowed: "invalid_request",
  not_found: "invalid_request",
  rate_limited: "slow_down",
  internal_error: "server_error",
  service_unavailable: "temporarily_unavailable",
};

/**
 * A refusal of an authorization server endpoint in OAuth's terms: `error` an OAuth code, `error_description` beside
 * the contract's `message`, an invalid input 400 `invalidInput` (its field errors kept). The status stays what the
 * edge decided (413 for a body over the limit, 429, 503), except 422 and 415, which OAuth clients know as 400 (RFC
 * 6749 5.2 and RFC 7591 3.2.2 give a request in the wrong form no status of its own).
 */
export function asOAuthError(result: EdgeResult, invalidInput: string): EdgeResult {
  if (result.status < 400 || typeof result.body !== "string") return result;
  let body: ErrorBody;
  try {
    body = JSON.parse(result.body) as ErrorBody;
  } catch {
    return result;
  }
  if (typeof body.error_description === "string") return result;
  const fields = Object.entries(body.errors ?? {});
  const description =
    fields.length > 0 ? fields.map(([field, messages]) => `${field}: ${messages.join(", ")}`).join("; ") : body.message;
  const redirect = fields.length > 0 && fields.every(([field]) => field.startsWith("redirect_uris"));
  const error =
    result.status === 422
      ? redirect && invalidInput === "invalid_client_metadata"
        ? "invalid_redirect_uri"
        : invalidInput
      : (OAUTH_CODES[body.error ?? ""] ?? body.error ?? "invalid_request");
  return {
    ...result,
    status: result.status === 422 || result.status === 415 ? 400 : result.status,
    body: JSON.stringify({ ...body, error, error_description: description }),
  };
}
