import { createHash, randomUUID } from "node:crypto";
import { type Database, databaseDown, databaseUnavailable, withDeadline } from "@shelf/db";
import type { AnyRouter } from "@trpc/server";
import { accountAbilities } from "../abilities";
import { type Credential, credentialKey } from "../auth/caller";
import { accountApiPolicy, type CredentialPolicy, resolveCredential } from "../auth/credential";
import type { AccountMcp } from "../context";
import { createContext } from "../context";
import type { Delivery } from "../delivery";
import { type ClientJson, JSON_TYPE, JsonText, parseClientJson, TOO_DEEP } from "../json-text";
import type { Logger } from "../log";
import { PROTECTED_RESOURCE_METADATA_PATH } from "../oauth/metadata";
import { askedOrigin } from "../oauth/resource";
import type { OAuthSettings } from "../oauth/settings";
import { accountMcpPolicy } from "../oauth/tokens";
import { contentDisposition, type FileOutput, type PlainOutput } from "../plain";
import { authorize, authorizeDesign } from "../procedures/authorize";
import { createRateLimiter, type RateLimiter } from "../rate-limit";
import type { PublicDisclosureData } from "../schemas/disclosure";
import { clientAddressOf } from "./address";
import { type DirectCall, directCall } from "./direct";
import { allowedHostsFor, sameOrigin } from "./hosts";
import {
  formValues,
  type JsonSchema,
  nulErrors,
  type OpenApiParameter,
  type ParamSpec,
  paramSpecs,
  readParameters,
} from "./input";
import { readRpcMessage } from "./json-rpc";
import { readMultipart } from "./multipart";
import { buildOpenApiDocument, type DocumentInfo, type OpenApiDocument } from "./openapi";
import { contentRange, evaluateRange, ifRangeHolds, multipartRanges } from "./range";
import {
  type EdgeRequest,
  FORM_TYPE,
  hasDotSegments,
  isWellEncoded,
  MULTIPART_TYPE,
  parseForm,
  parseTarget,
  readBody,
  utf8,
} from "./request";
import {
  asJsonRpcError,
  asOAuthError,
  bodyLength,
  domainErrorBody,
  type EdgeResult,
  errorResult,
  errorToResponse,
  jsonResult,
  validationBody,
} from "./results";
import { collectRoutes, type EdgeRoute, type RouteMatch, RouteTable } from "./routes";

/** What an answer's protocol wrapping needs of the request's handling: the credential it was resolved to. */
type Seen = { credential?: Credential };

/** What the edge needs to know of the database's health (see @shelf/db/server createDatabaseHealth). */
export type HealthSignal = { readonly up: boolean; reportFailure: (reason: string) => void };

export type EdgeOptions = {
  /** The routers whose procedures declare REST routes in their meta. */
  router: AnyRouter;
  db: Database;
  /** How long a request may wait for the database (credential lookup, then the procedure) before a 503. */
  dbDeadlineMs?: number;
  /** While the database is known to be down, requests get 503 at once instead of waiting for it. */
  health?: HealthSignal;
  log: Logger;
  /** Public base URL, for links in answers and the document's server. */
  baseUrl: string;
  /** Artifact storage, download links and signing, for the procedures that deliver files. */
  delivery?: Delivery;
  /** The brand prefix of keys issued through this edge (`SHELF_KEY_PREFIX`). */
  keyBrand?: string;
  /** The business disclosure the public lookups answer with. */
  disclosure?: PublicDisclosureData;
  rateLimiter: RateLimiter;
  /**
   * Makes the limiter of a route's own limit (`meta.addressLimit`), once per name, when the edge is made: the
   * server's, so that it shares the main limiter's store (Redis for several instances). By default, in memory.
   */
  routeLimiter?: (name: string, perMinute: number) => RateLimiter;
  /** A deployment's own value of a route's per-address limit, by the limit's name (`oauth-register`). */
  routeLimits?: Record<string, number>;
  /** The authorization server's settings, for its endpoints (issuer, resource, key brand, metadata documents). */
  oauth?: OAuthSettings;
  /** Which bearer credentials are read and accepted; by default account API keys only. */
  credentials?: CredentialPolicy;
  /** Read the client address from X-Forwarded-For, as appended by the one proxy in front (the last entry). */
  trustProxy?: boolean;
  /** Largest request body read (413 beyond); 1 MiB by default. */
  maxBodyBytes?: number;
  /** Where the OpenAPI document is served, and its title. */
  document?: { path: string; info: DocumentInfo };
  /** The design host's collection lock length (`SHELF_COLLECT_LEASE_SECONDS`); 600 seconds when unset. */
  collectLeaseSeconds?: number;
  /** The account MCP's serving code, for the routes that declare `meta.mcp`. */
  mcp?: AccountMcp;
  /**
   * Host names (with port) the MCP routes' requests may name besides the base URL's; loopback ones are added for a
   * loopback base (DNS rebinding protection).
   */
  allowedHosts?: readonly string[];
};

export type Edge = {
  handle: (request: EdgeRequest) => Promise<EdgeResult>;
  /** Whether a path is this edge's: one of its routes, or anything under the first segment of one (JSON 404s). */
  owns: (path: string) => boolean;
  routes: RouteTable;
  document: OpenApiDocument;
  /** Resolves once the limiters of the routes' own limits reach their store; false if one did not in time. */
  ready: (timeoutMs?: number) => Promise<boolean>;
  /** Closes the limiters of the routes' own limits (their Redis connections). */
  close: () => Promise<void>;
};

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_DB_DEADLINE_MS = 6000;
/** What a client is told to wait after a 503: about two probes of the database. */
const RETRY_AFTER_SECONDS = 2;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);
/** Endpoints any browser may call (the authorization server's): no cookie is read, so any origin may. */
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-allow-methods": "GET, POST, OPTIONS",
};

/**
 * One HTTP edge for every route of a router: credential, rate limit, routing, input parsing, the procedure call,
 * and the contract's answers (error bodies, success statuses, validators, ranges, HEAD), in that order. Any server
 * can mount it: the custom Node server writes its results straight to the socket, fetch-style handlers turn them
 * into a `Response`.
 *
 * Inputs are parsed here, from the document's parameter types, into values the procedure's own schema then checks:
 * the procedure sees the same input whichever route ran before, and whether it was called over REST or through
 * `createCaller` (MCP tools).
 */
export function createEdge(options: EdgeOptions): Edge {
  const routes = new RouteTable(collectRoutes(options.router));
  const info = options.document?.info ?? { title: "API", description: "", version: "1" };
  const document = buildOpenApiDocument(options.router, routes.routes, options.baseUrl, info);
  const documentBody = JSON.stringify(document);
  const specs = new Map<EdgeRoute, ParamSpec[]>();
  /** Each route's procedure, called without tRPC's generic runner (see `directCall`): the same levels, leaner. */
  const calls = new Map<EdgeRoute, DirectCall>(
    routes.routes.map((route) => [route, directCall(options.router, route.procedure)]),
  );
  /** The body's properties of routes that take multipart forms: how their text fields are typed. */
  const formProperties = new Map<EdgeRoute, Record<string, JsonSchema>>();
  for (const route of routes.routes) {
    const item = document.paths?.[route.documentPath] as
      | Record<
          string,
          {
            parameters?: OpenApiParameter[];
            requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
          }
        >
      | undefined;
    const operation = item?.[route.method.toLowerCase()];
    specs.set(route, paramSpecs(operation?.parameters ?? []));
    if (route.meta.multipart) {
      formProperties.set(route, operation?.requestBody?.content?.["multipart/form-data"]?.schema?.properties ?? {});
    } else if (route.meta.formBody) {
      formProperties.set(
        route,
        operation?.requestBody?.content?.["application/x-www-form-urlencoded"]?.schema?.properties ?? {},
      );
    }
  }
  const prefixes = [
    ...new Set(routes.routes.filter((route) => !route.meta.exactPath).map((route) => `/${route.path.split("/")[1]}`)),
  ];
  const underPrefixes = prefixes.map((prefix) => `${prefix}/`);
  const exactPaths = new Set(routes.routes.filter((route) => route.meta.exactPath).map((route) => route.path));
  const corsRoute = routeOfPath(routes.routes.filter((route) => route.meta.oauth));
  const mcpRoute = routeOfPath(routes.routes.filter((route) => route.meta.mcp));
  const base = new URL(options.baseUrl);
  const hosts = allowedHostsFor(base, options.allowedHosts ?? []);
  const credentials = options.credentials ?? accountApiPolicy;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const dbDeadlineMs = options.dbDeadlineMs ?? DEFAULT_DB_DEADLINE_MS;
  const { log, health } = options;
  // The limiters of the routes' own limits, made at once so that a shared store is connected before requests come.
  const routeLimiters = new Map<string, { limiter: RateLimiter; perMinute: number }>();
  for (const route of routes.routes) {
    const own = route.meta.addressLimit;
    if (own && !routeLimiters.has(own.name)) {
      const perMinute = options.routeLimits?.[own.name] ?? own.perMinute;
      routeLimiters.set(own.name, {
        limiter:
          options.routeLimiter?.(own.name, perMinute) ?? createRateLimiter({ points: perMinute, name: own.name }),
        perMinute,
      });
    }
  }

  async function handle(request: EdgeRequest): Promise<EdgeResult> {
    const requestId = request.requestId ?? randomUUID();
    let result: EdgeResult;
    try {
      result = await dispatch(request, requestId);
    } catch (error) {
      // The database or the rate-limit store failed outside any procedure: still the contract's JSON.
      result = failure(error, requestId);
    }
    result.headers["x-request-id"] = requestId;
    return finish(request, result);
  }

  const failure = (error: unknown, requestId: string) => failureResult(error, { log, health, requestId });

  /** The answer, in the protocol of the route that gave it (OAuth's errors, CORS for the authorization server). */
  async function dispatch(request: EdgeRequest, requestId: string): Promise<EdgeResult> {
    const seen: Seen = {};
    const result = await answer(request, requestId, seen);
    const path = request.target.split("?", 1)[0] as string;
    const mcp = mcpRoute(path);
    if (mcp) return mcpAnswer(mcp, result, seen.credential, request.header("host"));
    const cors = corsRoute(path);
    if (!cors) return result;
    Object.assign(result.headers, CORS);
    return asOAuthError(result, cors.meta.oauth?.invalidInput ?? "invalid_request");
  }

  /**
   * An MCP endpoint's answer: refusals as JSON-RPC errors (`asJsonRpcError`), and on 401 and 403 the Bearer
   * challenge that sends a client to discovery (RFC 9728 section 5.1) or to ask for more (RFC 6750 section 3.1).
   */
  function mcpAnswer(
    route: EdgeRoute,
    result: EdgeResult,
    credential: Credential | undefined,
    host: string | undefined,
  ): EdgeResult {
    // Under the loopback name the request used, which the resource metadata then names too (oauth/resource.ts).
    const metadata = `${askedOrigin(base, host)}${PROTECTED_RESOURCE_METADATA_PATH}${route.path}`;
    if (result.status === 401) {
      const scope = route.meta.mcp?.defaultScopes.join(" ") ?? "";
      const error = credential && credential.status !== "none" ? ', error="invalid_token"' : "";
      result.headers["www-authenticate"] = `Bearer resource_metadata="${metadata}", scope="${scope}"${error}`;
    }
    if (result.status === 403 && typeof result.body === "string") {
      const body = JSON.parse(result.body) as { error?: string; ability?: string };
      if (body.error === "missing_api_key_ability") {
        // What the call needs plus what the credential already holds: clients ask for exactly the challenge's scope
        // again (the MCP step-up flow), and a token for the missing ability alone would lose every tool it used.
        const needed = body.ability ?? route.meta.ability;
        const caller = credential?.status === "valid" ? credential.caller : undefined;
        const held: ReadonlySet<string> = caller && "abilities" in caller ? caller.abilities : new Set<string>();
        const scope = accountAbilities.filter((name) => name === needed || held.has(name)).join(" ");
        result.headers["www-authenticate"] =
          `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`;
      }
    }
    return asJsonRpcError(result);
  }

  async function answer(request: EdgeRequest, requestId: string, seen: Seen): Promise<EdgeResult> {
    const url = parseTarget(request.target);
    if (!url || !isWellEncoded(url)) {
      return errorResult("malformed_request", "The URL has malformed percent-encoding.");
    }
    if (hasDotSegments(request.target)) {
      return errorResult("not_found", "No such path: the URL has . or .. segments, which are never resolved.");
    }
    const path = url.pathname;
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (options.document && method === "GET" && path === options.document.path) {
      return {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
        body: documentBody,
      };
    }

    // DNS rebinding: a page on another site reaching an MCP endpoint through a name that resolves to this server.
    if (mcpRoute(path) && !sameOrigin(request, hosts, base)) {
      return errorResult("forbidden_origin");
    }
    const matched = routes.match(method, path);
    if (health && !health.up && !matched?.route.meta.noDatabase) return unavailableResult();
    let credential = await withDeadline(
      resolveCredential(
        options.db,
        request.header("authorization"),
        matched?.route.meta.mcp ? accountMcpPolicy : credentials,
        clientAddress(request, options),
      ),
      dbDeadlineMs,
    );
    // A sign-in token is for one resource (RFC 8707): one issued for another is refused as if unknown.
    if (
      matched?.route.meta.mcp &&
      credential.status === "valid" &&
      credential.caller.type === "oauth_token" &&
      credential.caller.resource !== `${base.origin}${matched.route.path}`
    ) {
      credential = { status: "invalid" };
    }
    seen.credential = credential;
    const own = matched?.route.meta.addressLimit;
    const limitHeaders: Record<string, string> = {};
    if (!own?.instead && matched?.route.meta.limitedBy === undefined) {
      const limitKey =
        credential.status === "valid" ? credentialKey(credential.caller) : `ip:${clientAddress(request, options)}`;
      const refused = await consumeLimit(options.rateLimiter, limitKey, limitHeaders);
      if (refused) return refused;
    }
    if (own) {
      const { limiter, perMinute } = routeLimiters.get(own.name) as { limiter: RateLimiter; perMinute: number };
      const refused = await consumeLimit(
        limiter,
        `ip:${clientAddress(request, options)}`,
        limitHeaders,
        `At most ${perMinute} of these a minute from one address.`,
      );
      if (refused) return refused;
    }
    let result: EdgeResult;
    if (matched) {
      result = await callRoute(matched, url, request, credential, requestId, limitHeaders);
      result.route = `${matched.route.method} ${matched.route.path}`;
    } else {
      const allowed = routes.allowedMethods(path);
      if (allowed.length === 0) result = errorResult("not_found", "No such API endpoint.");
      else if (request.method === "OPTIONS")
        result = { status: 204, headers: { allow: allowed.join(", ") }, body: null };
      else result = errorResult("method_not_allowed", undefined, { allow: allowed.join(", ") });
    }
    Object.assign(result.headers, limitHeaders);
    return result;
  }

  async function callRoute(
    { route, params }: RouteMatch,
    url: URL,
    request: EdgeRequest,
    credential: Credential,
    requestId: string,
    limitHeaders: Record<string, string>,
  ): Promise<EdgeResult> {
    try {
      // 401 and 403 before a byte of the body is read or a parameter judged (contract 5.9).
      if (route.meta.role) authorizeDesign(route.meta, credential);
      else authorize(route.meta, credential);
    } catch (error) {
      return failure(error, requestId);
    }
    let body: unknown;
    const contentType = request.header("content-type") ?? "";
    if (route.meta.mcp && BODY_METHODS.has(route.method)) {
      const read = await readRpcMessage(request, maxBodyBytes);
      if (!read.ok) return read.result;
      body = read.message;
    } else if (route.meta.multipart && MULTIPART_TYPE.test(contentType)) {
      const form = await readMultipart(request, route.meta.multipart);
      if (!form.ok) {
        if (form.reason === "invalid") return jsonResult(422, validationBody(form.errors));
        if (form.reason === "too_large") return errorResult("payload_too_large");
        return errorResult("malformed_request", "The multipart form is malformed.");
      }
      body = { ...formValues(form.fields, formProperties.get(route) ?? {}), ...form.files };
    } else if (BODY_METHODS.has(route.method)) {
      const read = await readBody(request, maxBodyBytes);
      if (!read.ok && read.reason === "aborted") {
        return errorResult("malformed_request", "The request body ended before it was complete.");
      }
      if (!read.ok) return errorResult("payload_too_large");
      if (route.meta.formBody === "only" && !FORM_TYPE.test(contentType)) {
        return errorResult("unsupported_media_type", "Send the body as application/x-www-form-urlencoded.");
      }
      if (route.meta.formBody && FORM_TYPE.test(contentType)) {
        const form = parseForm(read.bytes);
        if (!form.ok) return jsonResult(422, validationBody(form.errors));
        body = formValues(form.fields, formProperties.get(route) ?? {});
      } else if (read.bytes.some((byte) => byte > 0x20)) {
        if (!JSON_TYPE.test(contentType)) {
          return errorResult(
            "unsupported_media_type",
            route.meta.multipart
              ? "Send the body as application/json or multipart/form-data."
              : route.meta.formBody
                ? "Send the body as application/json or application/x-www-form-urlencoded."
                : undefined,
          );
        }
        let parsed: ClientJson;
        try {
          parsed = parseClientJson(utf8.decode(read.bytes));
        } catch {
          parsed = { ok: false, reason: "malformed" };
        }
        if (!parsed.ok) {
          const problem = parsed.reason === "too_deep" ? TOO_DEEP : "must be valid JSON in UTF-8";
          return jsonResult(422, validationBody({ body: [problem] }));
        }
        body = parsed.value;
      }
    }
    const { values, errors } = readParameters(specs.get(route) ?? [], params, url.searchParams);
    nulErrors(body, "", errors);
    if (body !== undefined && (body === null || typeof body !== "object" || Array.isArray(body))) {
      errors.body = ["must be a JSON object"];
    }
    if (Object.keys(errors).length > 0) return jsonResult(422, validationBody(errors));
    const { limitedBy } = route.meta;
    if (limitedBy) {
      const subject = await withDeadline(
        limitedBy(options.db, { ...(body as object | undefined), ...values }),
        dbDeadlineMs,
      );
      const refused = await consumeLimit(
        options.rateLimiter,
        subject ?? `ip:${clientAddress(request, options)}`,
        limitHeaders,
      );
      if (refused) return refused;
    }

    const context = createContext({
      db: options.db,
      credential,
      baseUrl: options.baseUrl,
      delivery: options.delivery,
      acceptLanguage: request.header("accept-language"),
      keyBrand: options.keyBrand,
      disclosure: options.disclosure,
      log,
      collectLeaseSeconds: options.collectLeaseSeconds,
      oauth: options.oauth,
      mcp: options.mcp,
      http: { header: request.header, requestId },
    });
    let output: unknown;
    try {
      output = await withDeadline(
        (calls.get(route) as DirectCall)(context, async () => ({ ...(body as object | undefined), ...values })),
        dbDeadlineMs,
      );
    } catch (error) {
      return failure(error, requestId);
    }
    const headers = { ...context.res.headers };
    const status = context.res.status ?? route.meta.successStatus ?? 200;
    if (route.kind === "json") {
      if (status === 204 || output === undefined) return { status, headers, body: null };
      if (output instanceof JsonText) {
        return {
          status,
          headers: { "content-type": "application/json; charset=utf-8", ...headers },
          body: output.text,
        };
      }
      return jsonResult(status, output, headers);
    }
    return plainResult(output as PlainOutput, status, headers, request);
  }

  return {
    handle,
    owns: (path) =>
      exactPaths.has(path) ||
      prefixes.some((prefix, index) => path === prefix || path.startsWith(underPrefixes[index] as string)),
    routes,
    document,
    ready: async (timeoutMs) =>
      (await Promise.all([...routeLimiters.values()].map(({ limiter }) => limiter.ready(timeoutMs)))).every(Boolean),
    close: async () => {
      await Promise.allSettled([...routeLimiters.values()].map(({ limiter }) => limiter.close()));
    },
  };
}

/**
 * Whatever went wrong, as the contract's answer, for any edge. A database that cannot answer is a 503 the client
 * may retry (and, if it is down rather than slow, tells the health monitor); anything else unexpected is a logged
 * 500.
 */
export function failureResult(
  error: unknown,
  context: { log: Logger; health?: HealthSignal; requestId: string },
): EdgeResult {
  const unavailable = databaseUnavailable(error);
  if (unavailable) {
    if (databaseDown(unavailable)) context.health?.reportFailure(unavailable);
    context.log.warn({ reqId: context.requestId, reason: unavailable }, "database unavailable");
    return unavailableResult();
  }
  const mapped = errorToResponse(error);
  if (mapped.unexpected) context.log.error({ reqId: context.requestId, err: error }, "unexpected error");
  return jsonResult(mapped.status, mapped.body);
}

/** 503 while the database cannot answer, with how long to wait. */
export function unavailableResult(): EdgeResult {
  return errorResult("service_unavailable", undefined, { "retry-after": String(RETRY_AFTER_SECONDS) });
}

function plainResult(
  output: PlainOutput,
  status: number,
  headers: Record<string, string>,
  request: EdgeRequest,
): EdgeResult {
  switch (output.kind) {
    case "redirect":
      return {
        status: output.status,
        headers: { ...headers, location: output.location, "cache-control": output.cacheControl ?? "no-store" },
        body: null,
      };
    case "text":
      return {
        status,
        headers: {
          ...headers,
          "content-type": output.contentType,
          ...(output.cacheControl ? { "cache-control": output.cacheControl } : {}),
          ...(output.lastModified ? { "last-modified": output.lastModified.toUTCString() } : {}),
        },
        body: output.body,
      };
    case "file":
      return fileResult(output, headers, request);
  }
}

/** A stored file: validators, then ranges (RFC 9110 sections 13 and 14), streamed either way. */
function fileResult(file: FileOutput, base: Record<string, string>, request: EdgeRequest): EdgeResult {
  const etag = `"${file.etag}"`;
  const headers: Record<string, string> = {
    ...base,
    "content-type": file.contentType,
    "accept-ranges": "bytes",
    etag,
    "cache-control": file.cacheControl,
  };
  if (file.lastModified) headers["last-modified"] = file.lastModified.toUTCString();
  if (file.filename) headers["content-disposition"] = contentDisposition(file.filename);
  if (notModified(request, etag, file.lastModified)) return { status: 304, headers, body: null };

  const decision = ifRangeHolds(request.header("if-range"), etag, file.lastModified)
    ? evaluateRange(request.header("range"), file.size)
    : ({ kind: "full" } as const);
  if (decision.kind === "unsatisfiable") {
    return jsonResult(416, domainErrorBody("range_not_satisfiable"), {
      "accept-ranges": "bytes",
      "content-range": `bytes */${file.size}`,
    });
  }
  if (decision.kind === "full") {
    return { status: 200, headers, body: { length: file.size, open: async () => file.open() } };
  }
  const [single] = decision.ranges;
  if (decision.ranges.length === 1 && single) {
    headers["content-range"] = contentRange(single, file.size);
    return {
      status: 206,
      headers,
      body: { length: single.end - single.start + 1, open: async () => file.open(single) },
    };
  }
  const multipart = multipartRanges(decision.ranges, file.size, file.contentType, file.open);
  headers["content-type"] = multipart.contentType;
  return { status: 206, headers, body: { length: multipart.length, open: multipart.open } };
}

/** If-None-Match (weak comparison), else If-Modified-Since (RFC 9110, 13.2.2). */
function notModified(request: EdgeRequest, etag: string, lastModified: Date | null): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const ifNoneMatch = request.header("if-none-match");
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() === "*") return true;
    const opaque = etag.replace(/^W\//, "");
    return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === opaque);
  }
  const since = Date.parse(request.header("if-modified-since") ?? "");
  return lastModified !== null && !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

/**
 * The last touches every answer gets: a weak ETag on small GET bodies (devices revalidate the library and update
 * checks on every launch) unless the route said `no-store`, 304 when it still holds, `Content-Length`, and no body for HEAD.
 */
function finish(request: EdgeRequest, result: EdgeResult): EdgeResult {
  const { headers } = result;
  headers["x-content-type-options"] = "nosniff";
  if (result.status >= 400) headers["cache-control"] = "no-store";
  const isRead = request.method === "GET" || request.method === "HEAD";
  // An answer that must not be stored (one signed anew for each request) is never the same twice: no validator.
  if (
    isRead &&
    result.status === 200 &&
    headers.etag === undefined &&
    typeof result.body === "string" &&
    headers["cache-control"] !== "no-store"
  ) {
    // Encoded once: the hash and the socket take the same bytes.
    const bytes = Buffer.from(result.body);
    result.body = bytes;
    headers.etag = `W/"${createHash("sha1").update(bytes).digest("base64url")}"`;
    headers["cache-control"] ??= "private, no-cache";
    const lastModified = headers["last-modified"] ? new Date(headers["last-modified"]) : null;
    if (notModified(request, headers.etag, lastModified)) {
      result.status = 304;
      result.body = null;
    }
  }
  if (result.status !== 204 && result.status !== 304) headers["content-length"] = String(bodyLength(result.body));
  if (request.method === "HEAD") result.body = null;
  return result;
}

/**
 * The first of these routes whose path (any method) is this one: a lookup for paths written out, a scan for those with
 * parameters.
 */
function routeOfPath(routes: EdgeRoute[]): (path: string) => EdgeRoute | undefined {
  const exact = new Map<string, EdgeRoute>();
  for (const route of routes) if (route.params.length === 0 && !exact.has(route.path)) exact.set(route.path, route);
  const patterned = routes.filter((route) => route.params.length > 0);
  return (path) =>
    patterned.length === 0
      ? exact.get(path)
      : routes.find((route) => (route.params.length === 0 ? route.path === path : route.pattern.test(path)));
}

/**
 * Counts a request against a key's budget, writing what is left into `headers`; the 429 to answer when the budget is
 * used up (with `Retry-After`), else null.
 */
async function consumeLimit(
  limiter: RateLimiter,
  key: string,
  headers: Record<string, string>,
  message?: string,
): Promise<EdgeResult | null> {
  const decision = await limiter.consume(key);
  headers["x-ratelimit-limit"] = String(decision.limit);
  headers["x-ratelimit-remaining"] = String(decision.remaining);
  if (decision.allowed) return null;
  return errorResult("rate_limited", message, { ...headers, "retry-after": String(decision.retryAfterSeconds) });
}

function clientAddress(request: EdgeRequest, options: EdgeOptions): string {
  return clientAddressOf(request.header("x-forwarded-for"), request.clientAddress, options.trustProxy);
}
