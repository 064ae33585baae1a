import { createHash } from "node:crypto";
import type { Database } from "@shelf/db";
import { TRPCError } from "@trpc/server";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { resolveCredential } from "../auth/caller";
import { type Context, createContext } from "../context";
import type { RateLimiter } from "../rate-limit";
import { appRouter, createCaller } from "../root";
import { domainErrorBody, errorToResponse, jsonResult, type RestResult, validationBody } from "./error-response";
import { getOpenApiDocument } from "./openapi";
import { allowedMethods, matchRoute, type RestRoute, restRoutes } from "./routes";

export type { RestResult } from "./error-response";

export type RestHandlerOptions = {
  db: Database;
  baseUrl: string;
  rateLimiter: RateLimiter;
  /** Read the client address from X-Forwarded-For (behind a trusted proxy only). */
  trustProxy?: boolean;
  maxBodyBytes?: number;
};

export type RestRequestInfo = {
  /** The peer address of the connection, for the per-address rate limit of requests without a key. */
  clientAddress?: string;
};

export type RestHandler = (request: Request, info?: RestRequestInfo) => Promise<RestResult>;

type RequestState = { context: Context; error: unknown };

const routeByProcedure = new Map(restRoutes.map((route) => [route.procedure, route]));
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** A REST result as a fetch `Response` (Next route handlers, tests). */
export function toResponse(result: RestResult): Response {
  return new Response(result.body as BodyInit | null, { status: result.status, headers: result.headers });
}

/**
 * The whole REST API as one function from a fetch `Request` to a result that any server can write: Next's
 * catch-all route handler (as a Response) and the custom server (straight to the socket). JSON endpoints go
 * through trpc-to-openapi's node handler (built once); plain endpoints (CSS, files) call the same procedures
 * through createCaller. Either way the contract's error bodies, success statuses and rate-limit headers are
 * applied here, once.
 */
export function createRestHandler(options: RestHandlerOptions): RestHandler {
  const states = new WeakMap<object, RequestState>();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const openApiHandler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }: { req: object }) => (states.get(req) as RequestState).context,
    onError: ({ error, req }: { error: TRPCError; req: object }) => {
      const state = states.get(req);
      if (state) state.error = error;
    },
    responseMeta: ({
      ctx,
      paths,
      errors,
    }: {
      ctx?: Context;
      paths?: readonly string[];
      errors: readonly unknown[];
    }) => {
      if (errors.length > 0 || !ctx) return {};
      const route = paths?.[0] ? routeByProcedure.get(paths[0]) : undefined;
      return { status: route?.meta.successStatus ?? 200, headers: { ...ctx.res.headers } };
    },
  } as unknown as Parameters<typeof createOpenApiNodeHttpHandler>[0]);
  const integerParams = integerParameters(getOpenApiDocument(options.baseUrl));

  return async function handleRest(request, info = {}) {
    try {
      return await dispatch(request, info);
    } catch (error) {
      // The database or the rate-limit store failed outside any procedure: still the contract's JSON.
      console.error("REST request failed", error);
      return jsonResult(500, domainErrorBody("internal_error"));
    }
  };

  async function dispatch(request: Request, info: RestRequestInfo): Promise<RestResult> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/api(?=\/|$)/, "") || "/";
    if (!isWellEncoded(url)) {
      return jsonResult(400, domainErrorBody("malformed_request", "The URL has malformed percent-encoding."));
    }
    if (request.method === "GET" && path === "/openapi.json") {
      return jsonResult(200, getOpenApiDocument(options.baseUrl), { "cache-control": "public, max-age=300" });
    }

    const credential = await resolveCredential(options.db, request.headers.get("authorization"));
    const limitKey =
      credential.status === "valid" ? `key:${credential.caller.keyId}` : `ip:${clientAddress(request, info, options)}`;
    const decision = await options.rateLimiter.consume(limitKey);
    const limitHeaders: Record<string, string> = {
      "x-ratelimit-limit": String(decision.limit),
      "x-ratelimit-remaining": String(decision.remaining),
    };
    if (!decision.allowed) {
      return jsonResult(429, domainErrorBody("rate_limited"), {
        ...limitHeaders,
        "retry-after": String(decision.retryAfterSeconds),
      });
    }

    const context = createContext({ db: options.db, credential, baseUrl: options.baseUrl });
    // HEAD is GET without the body.
    const method = request.method === "HEAD" ? "GET" : request.method;
    const matched = matchRoute(method, path);
    let result: RestResult;
    if (!matched) {
      const allowed = allowedMethods(path);
      result =
        allowed.length > 0
          ? jsonResult(405, domainErrorBody("method_not_allowed"), { allow: allowed.join(", ") })
          : jsonResult(404, domainErrorBody("not_found", "No such API endpoint."));
    } else if (matched.route.kind === "plain") {
      result = await callPlainRoute(
        matched.route,
        { ...Object.fromEntries(url.searchParams), ...matched.params },
        context,
      );
    } else {
      const checkedPath = rejectNonIntegers(integerParams.get(matched.route), matched.params, path, url.searchParams);
      result = await callJsonRoute(request, method, url, checkedPath, context);
    }
    Object.assign(result.headers, limitHeaders);
    if (method === "GET" && result.status === 200 && result.body !== null) {
      revalidate(result, request.headers.get("if-none-match"));
    }
    if (request.method === "HEAD") result.body = null;
    return result;
  }

  async function callJsonRoute(
    request: Request,
    method: string,
    url: URL,
    path: string,
    context: Context,
  ): Promise<RestResult> {
    let body: unknown;
    const takesBody = method !== "GET";
    if (takesBody && request.body !== null) {
      const contentType = request.headers.get("content-type") ?? "";
      const text = await request.text();
      if (Buffer.byteLength(text) > maxBodyBytes) return jsonResult(413, domainErrorBody("payload_too_large"));
      if (text.trim() === "") body = undefined;
      else if (!/^application\/(.+\+)?json\b/i.test(contentType)) {
        return jsonResult(415, domainErrorBody("unsupported_media_type"));
      } else {
        try {
          body = JSON.parse(text);
        } catch {
          return jsonResult(422, validationBody({ body: ["The body is not valid JSON."] }));
        }
      }
    }
    const innerUrl = `${url.origin}${path}${url.search}`;
    // trpc-to-openapi reads `url`, `method` and `body` from the request; everything else comes from the original.
    const proxy = new Proxy(request, {
      get(target, property) {
        if (property === "url") return innerUrl;
        if (property === "method") return method;
        if (property === "body") return body;
        if (property === "headers" && takesBody) return jsonHeaders(target.headers);
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const state: RequestState = { context, error: undefined };
    states.set(proxy, state);
    const result = await new Promise<RestResult>((resolve) => {
      const headers: Record<string, string> = {};
      const res = {
        statusCode: 200,
        setHeader(name: string, value: string | string[]) {
          headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
        },
        end(payload?: string) {
          const empty = res.statusCode === 204 || res.statusCode === 304;
          resolve({ status: res.statusCode, headers, body: empty ? null : (payload ?? null) });
        },
      };
      void openApiHandler(proxy as never, res as never);
    });
    if (result.status < 400) return result;
    const mapped = errorToResponse(state.error ?? new TRPCError({ code: "INTERNAL_SERVER_ERROR" }));
    return jsonResult(mapped.status, mapped.body);
  }
}

/**
 * Devices fetch the library and update checks on every launch: a weak ETag of the body lets them revalidate, and an
 * unchanged answer goes back as 304 without its body. `private, no-cache` keeps shared caches out of it.
 */
function revalidate(result: RestResult, ifNoneMatch: string | null): void {
  const etag = `W/"${createHash("sha1")
    .update(result.body as string | Uint8Array)
    .digest("base64url")}"`;
  result.headers.etag = etag;
  result.headers["cache-control"] ??= "private, no-cache";
  const presented = ifNoneMatch?.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (presented?.includes(etag.slice(2)) || ifNoneMatch?.trim() === "*") {
    result.status = 304;
    result.body = null;
  }
}

/** The body is already parsed (or absent): let trpc-to-openapi's content-type check pass for `+json` and empty bodies. */
function jsonHeaders(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.set("content-type", "application/json");
  return copy;
}

async function callPlainRoute(route: RestRoute, input: Record<string, string>, context: Context): Promise<RestResult> {
  const procedures = createCaller(context) as unknown as Record<
    string,
    Record<string, (input: unknown) => Promise<unknown>>
  >;
  const [group, name] = route.procedure.split(".") as [string, string];
  try {
    const procedure = procedures[group]?.[name];
    if (!procedure) throw new Error(`No procedure ${route.procedure}`);
    const output = await procedure(input);
    const body = typeof output === "string" || output instanceof Uint8Array ? output : JSON.stringify(output);
    const headers: Record<string, string> = {
      "content-type": route.meta.rest?.contentType ?? "application/octet-stream",
    };
    for (const [header, value] of Object.entries(context.res.headers)) headers[header.toLowerCase()] = value;
    return { status: route.meta.successStatus ?? 200, headers, body };
  } catch (error) {
    const mapped = errorToResponse(error);
    return jsonResult(mapped.status, mapped.body);
  }
}

type OpenApiParameter = { in: string; name: string; schema?: { type?: string } };
/** A route's integer parameters: query names, and path names with the segment each stands in. */
type IntegerParameters = { query: string[]; path: { name: string; segment: number }[] };

/**
 * Integer parameters (path and query) of every JSON route, read from the OpenAPI document. trpc-to-openapi coerces
 * them with `Number()`, which would take `1e3`, `0x10` or `1.0`: they are checked as plain integers first.
 */
function integerParameters(document: ReturnType<typeof getOpenApiDocument>): Map<RestRoute, IntegerParameters> {
  const byRoute = new Map<RestRoute, IntegerParameters>();
  for (const route of restRoutes) {
    const item = document.paths?.[route.path] as Record<string, { parameters?: OpenApiParameter[] }> | undefined;
    const integers = (item?.[route.method.toLowerCase()]?.parameters ?? []).filter(
      (parameter) => parameter.schema?.type === "integer",
    );
    const segments = route.path.split("/");
    byRoute.set(route, {
      query: integers.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name),
      path: integers
        .filter((parameter) => parameter.in === "path")
        .map((parameter) => ({ name: parameter.name, segment: segments.indexOf(`{${parameter.name}}`) })),
    });
  }
  return byRoute;
}

/**
 * Replaces integer parameters that are not plain integers with `NaN`, which the procedure's schema then refuses
 * with a 422 in its normal place: after the key and its ability are checked. Returns the path to dispatch.
 */
function rejectNonIntegers(
  parameters: IntegerParameters | undefined,
  pathParams: Record<string, string>,
  path: string,
  query: URLSearchParams,
): string {
  for (const name of parameters?.query ?? []) {
    if (query.getAll(name).some((value) => !PLAIN_INTEGER.test(value))) query.set(name, "NaN");
  }
  const invalid = (parameters?.path ?? []).filter(({ name }) => !PLAIN_INTEGER.test(pathParams[name] ?? ""));
  if (invalid.length === 0) return path;
  const segments = path.split("/");
  for (const { segment } of invalid) segments[segment] = "NaN";
  return segments.join("/");
}

const PLAIN_INTEGER = /^-?\d+$/;

function isWellEncoded(url: URL): boolean {
  try {
    decodeURIComponent(url.pathname);
    decodeURIComponent(url.search.replace(/\+/g, " "));
    return true;
  } catch {
    return false;
  }
}

function clientAddress(request: Request, info: RestRequestInfo, options: RestHandlerOptions): string {
  if (options.trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return info.clientAddress ?? "unknown";
}
