/** The error codes of RFC 6749 section 5.2, RFC 7591 section 3.2.2 and RFC 8707 the authorization server answers with. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "slow_down"
  | "server_error";

/**
 * A refusal in OAuth's own terms: `error` and `error_description` for OAuth clients, and the same text as `message`
 * (the contract's error shape) for everyone else.
 */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: number;

  constructor(code: OAuthErrorCode, description: string, status?: number) {
    super(description);
    this.name = "OAuthError";
    this.code = code;
    this.status = status ?? (code === "invalid_client" ? 401 : code === "server_error" ? 500 : 400);
  }

  body(): { error: OAuthErrorCode; error_description: string; message: string } {
    return { error: this.code, error_description: this.message, message: this.message };
  }
}
