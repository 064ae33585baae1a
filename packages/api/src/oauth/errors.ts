import { DomainError, type DomainErrorCode } from "../errors";

/** The error codes of RFC 6749 section 5.2, RFC 7591 section 3.2.2 and RFC 8707 the authorization server answers with. */
export type OAuthErrorCode = Extract<
  DomainErrorCode,
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
  | "server_error"
  | "temporarily_unavailable"
>;

/**
 * A refusal in OAuth's own terms: a domain error (one table, one status per code) whose body carries
 * `error_description` for OAuth clients besides the contract's `message`, the same text.
 */
export class OAuthError extends DomainError {
  declare readonly code: OAuthErrorCode;

  constructor(code: OAuthErrorCode, description: string) {
    super(code, description, { error_description: description });
    this.name = "OAuthError";
  }

  body(): { error: OAuthErrorCode; error_description: string; message: string } {
    return { error: this.code, error_description: this.message, message: this.message };
  }
}
