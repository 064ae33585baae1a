import type { Database } from "@shelf/db";
import { resolveCredential } from "../auth/caller";
import { createContext } from "../context";
import { createRateLimiter, type RateLimiter } from "../rate-limit";
import { createRestHandler, toResponse } from "../rest/handler";
import { createCaller } from "../root";

export const TEST_BASE_URL = "http://shelf.test";

export type ApiRequestOptions = {
  method?: string;
  key?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  /** Send `body` as given, without JSON encoding. */
  rawBody?: string;
  clientAddress?: string;
};

/** Real `Request`s through the REST handler, the same function the web app mounts. */
export function createApiClient(db: Database, options: { rateLimiter?: RateLimiter } = {}) {
  const rateLimiter = options.rateLimiter ?? createRateLimiter({ points: 1_000_000 });
  const handler = createRestHandler({ db, baseUrl: TEST_BASE_URL, rateLimiter });
  return async function request(path: string, init: ApiRequestOptions = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    const result = await handler(
      new Request(`${TEST_BASE_URL}${path}`, { method: init.method ?? "GET", headers, body }),
      {
        clientAddress: init.clientAddress ?? "203.0.113.7",
      },
    );
    const response = toResponse(result);
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
    return { status: response.status, headers: response.headers, text, body: json as any };
  };
}

/** The tRPC caller a request with this key would get. */
export async function callerFor(db: Database, key: string | null) {
  const credential = await resolveCredential(db, key ? `Bearer ${key}` : null);
  return createCaller(createContext({ db, credential, baseUrl: TEST_BASE_URL }));
}
