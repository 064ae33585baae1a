/**
 * Exit codes of `shelf`, documented in `shelf --help` and the README. Scripts branch on them, so they never change
 * meaning.
 */
export const ExitCode = {
  ok: 0,
  /** Anything else that went wrong (the message says what). */
  failed: 1,
  /** The command line is wrong: unknown option, missing argument, an ambiguous product. */
  usage: 2,
  /** The service could not be reached (after retrying where that was safe). */
  unreachable: 3,
  /** No key, or the key is unknown, revoked or expired: run `shelf login`. */
  signInNeeded: 4,
  /** The account or key may not do this: not entitled, missing ability, another product's key, update window over. */
  notEntitled: 5,
  /** The product, release or order does not exist, or there is nothing to install. */
  notFound: 6,
  /** Refused by the service's rules: every device seat taken, the client below the policy's minimum version. */
  refused: 7,
  /** A downloaded file or a signed document failed verification; nothing was installed or trusted. */
  verificationFailed: 8,
  /** The person interrupted the command (Ctrl-C, or Ctrl-C at a prompt): 128 + SIGINT, as shells count it. */
  cancelled: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const exitCodeHelp = `Exit codes:
  0  success
  1  failed (the message says why)
  2  usage: a wrong option or argument, or a product name that matches several products
  3  the service could not be reached: no connection, no answer in time (--timeout), or 502, 503, 504
  4  sign-in needed: run \`shelf login\`
  5  not allowed: not entitled to the product, or the key lacks an ability
  6  not found: no such product or release, or nothing to install
  7  refused: every device seat is taken, this client is older than the service allows, or no key slot is left
  8  verification failed: a download or a signed document did not match; nothing was installed
130  cancelled with Ctrl-C (a partial download is kept, and resumed by the next install)`;

/** A failure the user is told about in one sentence plus what to do, ending the command with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly code: string,
    readonly hint?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "CliError";
  }
}

type Explained = { sentence: string; hint?: string; exitCode: ExitCode };

/**
 * Every error code of the contract (section 7) and of the service's error table that this client can meet, as a
 * sentence and what to do about it.
 */
export const apiErrors: Record<string, Explained> = {
  missing_api_key: {
    sentence: "You are not signed in.",
    hint: "Run `shelf login`, or set SHELF_API_KEY.",
    exitCode: ExitCode.signInNeeded,
  },
  invalid_api_key: {
    sentence: "The service no longer accepts this key: it is unknown, revoked or expired.",
    hint: "Run `shelf login` to sign in again (or set a valid SHELF_API_KEY).",
    exitCode: ExitCode.signInNeeded,
  },
  missing_api_key_ability: {
    sentence: "This key is not allowed to do that (it lacks the ability the request needs).",
    hint: "Sign in with `shelf login` (its key holds the device abilities), or create a key with that ability in developer settings.",
    exitCode: ExitCode.notEntitled,
  },
  product_entitlement_required: {
    sentence: "This account is not entitled to the product.",
    hint: "Buy it or ask for access, then try again; `shelf library` lists what you can use.",
    exitCode: ExitCode.notEntitled,
  },
  product_api_key_scope_required: {
    sentence: "This key is bound to another product.",
    hint: "Use an account-wide key: run `shelf login`, or unset SHELF_API_KEY.",
    exitCode: ExitCode.notEntitled,
  },
  version_update_window_expired: {
    sentence: "Your update window for this product has ended, so newer versions cannot be downloaded.",
    hint: "Renew the product's updates to download newer versions; the last version your window covered stays installable.",
    exitCode: ExitCode.notEntitled,
  },
  download_link_invalid: {
    sentence: "The download link was refused.",
    hint: "Run the command again: it asks for a new link.",
    exitCode: ExitCode.failed,
  },
  download_link_expired: {
    sentence: "The download link expired.",
    hint: "Run the command again: it asks for a new link.",
    exitCode: ExitCode.failed,
  },
  install_not_available: {
    sentence: "There is nothing to install for this product on that channel yet.",
    hint: "Try another channel with --channel beta (or alpha, dev), or check `shelf releases PRODUCT`.",
    exitCode: ExitCode.notFound,
  },
  order_not_found: { sentence: "No such order in this account.", exitCode: ExitCode.notFound },
  not_found: {
    sentence: "The service has no such thing.",
    hint: "Check the product id or name with `shelf products`.",
    exitCode: ExitCode.notFound,
  },
  device_limit_reached: {
    sentence: "Every device seat of this product is taken.",
    hint: "Release a device at the manage address below, then run the command again.",
    exitCode: ExitCode.refused,
  },
  api_key_limit_reached: {
    sentence: "The account has no free key slot.",
    hint: "Revoke a key in developer settings, then try again.",
    exitCode: ExitCode.refused,
  },
  conflict: {
    sentence: "The service refused: the request conflicts with the current state.",
    exitCode: ExitCode.refused,
  },
  rate_limited: {
    sentence: "The service is rate limiting this client.",
    hint: "Wait a minute and try again.",
    exitCode: ExitCode.failed,
  },
  validation_failed: { sentence: "The service refused the request's values.", exitCode: ExitCode.usage },
  malformed_request: {
    sentence: "The service could not read the request.",
    hint: "Update shelf; if it persists, report it with `shelf report problem`.",
    exitCode: ExitCode.failed,
  },
  payload_too_large: { sentence: "What was sent is larger than the service accepts.", exitCode: ExitCode.usage },
  unsupported_media_type: {
    sentence: "The service could not read the request's format.",
    hint: "Update shelf.",
    exitCode: ExitCode.failed,
  },
  method_not_allowed: {
    sentence: "The service does not offer this operation at that address.",
    hint: "Check --base-url, and update shelf.",
    exitCode: ExitCode.failed,
  },
  range_not_satisfiable: { sentence: "The service refused to resume the download.", exitCode: ExitCode.failed },
  request_timeout: {
    sentence: "The request took too long to reach the service.",
    hint: "Check the connection and try again.",
    exitCode: ExitCode.unreachable,
  },
  internal_error: {
    sentence: "The service failed while answering.",
    hint: "Try again later; if it persists, report it with `shelf report problem`.",
    exitCode: ExitCode.failed,
  },
  service_unavailable: {
    sentence: "The service is briefly unavailable.",
    hint: "Try again in a few seconds.",
    exitCode: ExitCode.unreachable,
  },
  // Device sign-in (RFC 8628): the ones that end a sign-in.
  access_denied: {
    sentence: "The sign-in was denied on the web page.",
    hint: "Run `shelf login` again and approve it.",
    exitCode: ExitCode.signInNeeded,
  },
  expired_token: {
    sentence: "The sign-in code expired before it was approved.",
    hint: "Run `shelf login` again and approve it within ten minutes.",
    exitCode: ExitCode.signInNeeded,
  },
  invalid_grant: {
    sentence: "The service no longer knows this sign-in (it was used or is unknown).",
    hint: "Run `shelf login` again.",
    exitCode: ExitCode.signInNeeded,
  },
};

/** What a status without a known code means. */
function byStatus(status: number): Explained {
  if (status === 401) return apiErrors.invalid_api_key as Explained;
  if (status === 403) return { sentence: "The service refused this request.", exitCode: ExitCode.notEntitled };
  if (status === 404) return apiErrors.not_found as Explained;
  if (status === 409) return apiErrors.conflict as Explained;
  if (status === 422) return apiErrors.validation_failed as Explained;
  if (status === 429) return apiErrors.rate_limited as Explained;
  if (status >= 500) return apiErrors.internal_error as Explained;
  return { sentence: `The service answered ${status}.`, exitCode: ExitCode.failed };
}

/** The error for an answer of the service that is not a success, from its `{message, error}` or 422 body. */
export function apiError(status: number, body: unknown): CliError {
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const code =
    typeof record.error === "string" ? record.error : status === 422 ? "validation_failed" : `http_${status}`;
  const explained = apiErrors[code] ?? byStatus(status);
  let sentence = explained.sentence;
  if (status === 422 && typeof record.errors === "object" && record.errors !== null) {
    const fields = Object.entries(record.errors as Record<string, unknown>)
      .map(([field, messages]) => `${field}: ${Array.isArray(messages) ? messages.join(", ") : String(messages)}`)
      .join("; ");
    if (fields) sentence = `${sentence} ${fields}.`;
  }
  const { error: _code, message: _message, ...details } = record;
  return new CliError(sentence, explained.exitCode, code, explained.hint, { status, ...details });
}
