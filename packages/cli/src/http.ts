import type { z } from "zod";
import { apiError, CliError, ExitCode } from "./errors";
import { CLIENT_VERSION } from "./version";

export type Say = (line: string) => void;

export type ApiClientOptions = {
  baseUrl: string;
  key: string | null;
  /** Where waits and retries are announced (stderr): the user sees why nothing happens for a while. */
  say: Say;
  /** Longest Retry-After the client waits out before giving up, in seconds. */
  maxRetryAfterSeconds?: number;
  /** Pauses before the network retries of safe requests, in milliseconds. */
  backoffMs?: number[];
  /** How long one request may take, answer included, before the service counts as unreachable (milliseconds). */
  timeoutMs?: number;
};

export type RequestOptions = {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A multipart/form-data body instead of JSON (files). */
  form?: FormData;
  /** Send without the key (device sign-in). */
  anonymous?: boolean;
  /** Retry on network errors even though the method is not idempotent (the request has no effect twice). */
  retrySafe?: boolean;
};

const SAFE_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
const DEFAULT_BACKOFF_MS = [500, 1500, 4000];
const MAX_RATE_LIMIT_WAITS = 3;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Answers of a proxy or load balancer in front of a service that is down: the service itself was not reached. */
const GATEWAY_STATUSES: Record<number, string> = {
  502: "502 Bad Gateway",
  503: "503 Service Unavailable",
  504: "504 Gateway Timeout",
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds a 429 or 503 asks to wait: `Retry-After` as seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Whether a fetch failed because its `AbortSignal.timeout` ran out. */
export const isTimeout = (error: unknown) => (error as Error | undefined)?.name === "TimeoutError";

/** Why a request never got an answer, in the user's words. */
/** What a person can act on, for the network errors that say little by their code alone. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "nothing answers at that address",
  ECONNRESET: "the connection was reset",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the host name could not be looked up now",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  UND_ERR_SOCKET: "the connection was cut before an answer came",
  UND_ERR_CONNECT_TIMEOUT: "connecting took too long",
};

/** Why a request got no answer, in words and with the system's code (`nothing answers at that address, ECONNREFUSED`). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code;
  const words = code === undefined ? undefined : NETWORK_REASONS[code];
  if (words) return `${words}, ${code}`;
  return code ?? cause?.message ?? (error as Error).message;
}

const unreachableHint = "Check your connection and the address (--base-url or SHELF_BASE_URL).";

/** The service did not answer within the timeout: counted as unreachable (exit 3), never as a failure of its own. */
export function timedOut(baseUrl: string, timeoutMs: number): CliError {
  return new CliError(
    `The service at ${baseUrl} did not answer within ${timeoutMs / 1000} s.`,
    ExitCode.unreachable,
    "timeout",
    `${unreachableHint} A slow link may need a longer --timeout (or SHELF_TIMEOUT, in seconds).`,
  );
}

export const userAgent = () => `shelf-cli/${CLIENT_VERSION} node/${process.versions.node} ${process.platform}`;

/**
 * The service's REST API over HTTP: JSON in and out, the key as a Bearer header, answers checked against the shared
 * schemas, errors turned into sentences, 429 waited out as Retry-After asks, network errors retried where safe.
 */
export function createApiClient(options: ApiClientOptions) {
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxWait = options.maxRetryAfterSeconds ?? 120;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function send(method: string, path: string, request: RequestOptions): Promise<Response> {
    const url = new URL(`${options.baseUrl}${path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": userAgent(),
      "x-client-version": CLIENT_VERSION,
    };
    if (!request.anonymous) {
      if (!options.key) {
        throw new CliError("You are not signed in.", ExitCode.signInNeeded, "missing_api_key", "Run `shelf login`.");
      }
      headers.authorization = `Bearer ${options.key}`;
    }
    let body: string | FormData | undefined = request.form;
    if (request.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(request.body);
    }
    const retryable = SAFE_METHODS.has(method) || request.retrySafe === true;
    let rateLimitWaits = 0;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        // A service that accepts and never answers would not answer a second time either: no retry.
        if (isTimeout(error)) throw timedOut(options.baseUrl, timeoutMs);
        if (retryable && attempt < backoff.length) {
          const pause = backoff[attempt] as number;
          options.say(`Cannot reach ${url.origin} (${networkReason(error)}); retrying in ${pause / 1000} s.`);
          await sleep(pause);
          continue;
        }
        throw new CliError(
          `Cannot reach the service at ${options.baseUrl} (${networkReason(error)}).`,
          ExitCode.unreachable,
          "unreachable",
          unreachableHint,
        );
      }
      const gateway = GATEWAY_STATUSES[response.status];
      if (gateway) {
        await response.body?.cancel();
        if (retryable && attempt < backoff.length) {
          const pause = backoff[attempt] as number;
          options.say(`${url.origin} answered ${gateway}; retrying in ${pause / 1000} s.`);
          await sleep(pause);
          continue;
        }
        throw new CliError(
          `The service at ${options.baseUrl} cannot be reached: it answered ${gateway}.`,
          ExitCode.unreachable,
          "unreachable",
          "The service or the proxy in front of it is down: try again later.",
          { status: response.status },
        );
      }
      if (response.status === 429 && rateLimitWaits < MAX_RATE_LIMIT_WAITS) {
        const seconds = retryAfterSeconds(response.headers.get("retry-after")) ?? 60;
        if (seconds <= maxWait) {
          rateLimitWaits++;
          await response.body?.cancel();
          options.say(`The service is rate limiting this client: waiting ${seconds} s as it asks (Retry-After).`);
          await sleep(seconds * 1000);
          continue;
        }
      }
      return response;
    }
  }

  async function request<T>(
    method: string,
    path: string,
    schema: z.ZodType<T> | null,
    request: RequestOptions = {},
  ): Promise<T> {
    const response = await send(method, path, request);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (isTimeout(error)) throw timedOut(options.baseUrl, timeoutMs);
      throw new CliError(
        `The service at ${options.baseUrl} stopped answering (${networkReason(error)}).`,
        ExitCode.unreachable,
        "unreachable",
        unreachableHint,
      );
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) throw apiError(response.status, body);
    if (!schema) return body as T;
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new CliError(
        `The service answered ${method} ${path} in a shape this client does not know.`,
        ExitCode.failed,
        "unexpected_answer",
        "Update shelf (npm install -g @shelf/cli), or check --base-url points at a Shelf service.",
      );
    }
    return parsed.data;
  }

  return {
    baseUrl: options.baseUrl,
    hasKey: options.key !== null,
    get: <T>(path: string, schema: z.ZodType<T> | null, init?: RequestOptions) => request("GET", path, schema, init),
    post: <T>(path: string, schema: z.ZodType<T> | null, init?: RequestOptions) => request("POST", path, schema, init),
    put: <T>(path: string, schema: z.ZodType<T> | null, init?: RequestOptions) => request("PUT", path, schema, init),
    /** The raw answer, for callers that read its status themselves (device sign-in polling). */
    send,
  };
}
export type ApiClient = ReturnType<typeof createApiClient>;
