import type { Database } from "@shelf/db";
import { fromFetch, toResponse } from "@shelf/server/edge/fetch";
import type { Edge } from "@shelf/server/edge/pipeline";
import { createLogger, type Logger, readLogEnv } from "@shelf/server/log";
import { createRateLimiter, type RateLimiter } from "@shelf/server/rate-limit";
import { createAccountApiEdge, createAccountMcpOf } from "../account-api";
import type { ApiEdge } from "../api-edge";
import { resolveCredential } from "../auth/credential";
import { createGuessLimits, type GuessLimits } from "../auth/guess-limits";
import { sessionCaller, startWebSession } from "../auth/web-session";
import { type AccountServices, createContext } from "../context";
import type { Delivery } from "../delivery";
import { createDesignApiEdge, type DesignEdgeOptions } from "../design-api";
import { createCaller } from "../root";
import { DEMO_DISCLOSURE } from "../routers/public/disclosure";
import { sharedTestDelivery } from "./delivery";
import { recordSecret } from "./secrets";

export const TEST_BASE_URL = "http://shelf.test";

/** The authorization server of in-process edges in tests: the test base URL's, for its account MCP. */
export const TEST_OAUTH_SETTINGS = {
  issuer: TEST_BASE_URL,
  resource: `${TEST_BASE_URL}/api/mcp`,
  brand: "shelf",
  secret: "oauth-test-secret-".padEnd(64, "0"),
} as const;

/** The log of in-process edges in tests: the run's log file (scanned for secrets at the end), like the servers'. */
export const testLog: Logger = createLogger(readLogEnv(), { process: "vitest" });

export type ApiRequestOptions = {
  method?: string;
  key?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  /** Send `body` as given, without JSON encoding. */
  rawBody?: string | Uint8Array;
  clientAddress?: string;
  /** Send `path` as the request target byte for byte (no dot-segment removal or escaping, as curl --path-as-is). */
  rawTarget?: boolean;
};

/**
 * The design API's edge over a test database: the test log, a rate limit no test reaches, and what else the test
 * names (a delivery where its routes serve files, a collection lease of its own).
 */
export async function createTestDesignEdge(db: Database, options: Partial<DesignEdgeOptions> = {}): Promise<ApiEdge> {
  return createDesignApiEdge({
    db,
    baseUrl: TEST_BASE_URL,
    rateLimiter: createRateLimiter({ points: 1_000_000 }),
    log: testLog,
    ...options,
    // After the options: a test that names `delivery: undefined` still gets the shared one.
    delivery: options.delivery ?? (await sharedTestDelivery()),
  });
}

/**
 * The account host's services as an in-process test gives them: the given delivery (else the test process's shared
 * one), the test authorization server, guessing limits in memory, the account MCP over the test log.
 */
export async function testAccountServices(options: Partial<AccountServices> = {}): Promise<AccountServices> {
  return accountServicesOf(options.delivery ?? (await sharedTestDelivery()), options);
}

/** `testAccountServices` with a delivery the test already has. */
export function accountServicesOf(delivery: Delivery, options: Partial<AccountServices> = {}): AccountServices {
  return {
    delivery,
    oauth: options.oauth ?? TEST_OAUTH_SETTINGS,
    guessLimits: options.guessLimits ?? createGuessLimits({ namespace: `test-${crypto.randomUUID()}` }),
    mcp: options.mcp ?? createAccountMcpOf({ log: testLog }),
  };
}

/**
 * Real `Request`s through an edge: by default the account API, as the web app mounts it, delivering from the given
 * delivery (else the test process's shared one).
 */
export function createApiClient(
  db: Database,
  options: { rateLimiter?: RateLimiter; edge?: Edge | Promise<Edge>; delivery?: Delivery } = {},
) {
  const rateLimiter = options.rateLimiter ?? createRateLimiter({ points: 1_000_000 });
  let edge: Promise<Edge> | undefined;
  const edgeFor = async () =>
    options.edge ??
    createAccountApiEdge({
      db,
      baseUrl: TEST_BASE_URL,
      rateLimiter,
      log: testLog,
      disclosure: DEMO_DISCLOSURE,
      ...(await testAccountServices({ delivery: options.delivery })),
    });
  return async function request(path: string, init: ApiRequestOptions = {}) {
    edge ??= edgeFor();
    // The Host header a client sends (a fetch Request has none): the MCP endpoint checks it (DNS rebinding).
    const headers: Record<string, string> = { host: new URL(TEST_BASE_URL).host, ...init.headers };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    let body: string | Uint8Array | undefined = init.rawBody;
    if (init.body !== undefined) {
      // A form when the request says so (the OAuth endpoints take nothing else), JSON otherwise.
      const form = /^application\/x-www-form-urlencoded/i.test(headers["content-type"] ?? "");
      body = form ? new URLSearchParams(init.body as Record<string, string>).toString() : JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    const fetchRequest = new Request(`${TEST_BASE_URL}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: body as BodyInit | undefined,
    });
    const edgeRequest = fromFetch(fetchRequest, init.clientAddress ?? "203.0.113.7");
    if (init.rawTarget) edgeRequest.target = path;
    const response = await toResponse(await (await edge).handle(edgeRequest));
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString("utf8");
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
    return { status: response.status, headers: response.headers, text, bytes, body: json as any };
  };
}

/** The tRPC caller a request with this key would get. */
export async function callerFor(db: Database, key: string | null, delivery?: Delivery) {
  const credential = await resolveCredential(db, key ? `Bearer ${key}` : null);
  return createCaller(
    createContext({ db, credential, baseUrl: TEST_BASE_URL, ...(await testAccountServices({ delivery })) }),
  );
}

/**
 * A person signed in to the account pages, as the web app resolves them: a real session row, every account
 * ability, and the guessing limits (in memory unless given).
 */
export async function signedInCaller(db: Database, accountId: number, options: { guessLimits?: GuessLimits } = {}) {
  const { secret, sessionId } = await startWebSession(db, accountId);
  recordSecret(secret);
  const caller = sessionCaller(accountId, sessionId);
  const guessLimits = options.guessLimits ?? createGuessLimits({ namespace: `test-${secret.slice(0, 8)}` });
  return {
    secret,
    sessionId,
    caller: createCaller(
      createContext({
        db,
        credential: { status: "valid", caller },
        baseUrl: TEST_BASE_URL,
        ...(await testAccountServices({ guessLimits })),
      }),
    ),
  };
}
