import { randomUUID } from "node:crypto";
import { type Database, withDeadline } from "@shelf/db";
import { JsonText } from "../json-text";
import type { Logger } from "../log";
import type { PlainOutput } from "../plain";
import type { RateLimiter } from "../rate-limit";
import { clientAddressOf } from "./address";
import { BODY_METHODS, readRouteBody } from "./body";
import { failureResult, type HealthSignal, unavailableResult } from "./failure";
import { plainResult } from "./file-answer";
import { finish } from "./finish";
import { nulErrors, readParameters } from "./input";
import { consumeLimit, type OwnLimit, ownLimits } from "./limits";
import { type EdgeProtocol, protocolsByPath, type SpokenAt } from "./protocol";
import { type EdgeRequest, hasDotSegments, isWellEncoded, parseTarget } from "./request";
import { type EdgeResult, errorResult, jsonResult, type ResponseState, validationBody } from "./results";
import { type OpenApiPaths, type RouteInputs, routeInputs } from "./route-inputs";
import { type EdgeRoute, type EdgeRouteMeta, type RouteMatch, RouteTable } from "./routes";

export type { HealthSignal } from "./failure";

/** What the host knows of its callers, which the edge asks at the stages that need it. */
export type EdgeCallers<Meta extends EdgeRouteMeta, Credential, Policy, Context> = {
  /** The credential a request carries, read as the route's protocol's policy says (the host's default without one). */
  credential: (request: EdgeRequest, policy: Policy | undefined, address: string) => Promise<Credential>;
  /** The rate limit's key for a credential; none for a request without a valid one (counted by its address). */
  limitKey: (credential: Credential) => string | undefined;
  /** Throws the 401 or 403 that refuses the credential the route, before a byte of the body is read. */
  authorize: (route: EdgeRoute<Meta>, credential: Credential) => void;
  /** The procedure's context for a request. */
  context: (request: EdgeRequest, credential: Credential, requestId: string) => Context;
};

/**
 * A route's procedure, called with its context and its input (read only when the procedure asks for it); what it
 * throws is the route's refusal. The host makes one per route when the edge is made.
 */
export type RouteCall<Context> = (context: Context, getRawInput: () => Promise<unknown>) => Promise<unknown>;

export type PipelineOptions<Meta extends EdgeRouteMeta, Credential, Policy, Context extends { res: ResponseState }> = {
  /** The host's routes, read from its own declarations. */
  routes: readonly EdgeRoute<Meta>[];
  /** Makes a route's call, once per route when the edge is made. */
  call: (route: EdgeRoute<Meta>) => RouteCall<Context>;
  /**
   * The OpenAPI document the routes are described in: each route's path, query and form fields are read as typed
   * there. `path`: where the edge serves it, if it does (written out once, when the edge is made).
   */
  document: { parsed: OpenApiPaths; path?: string };
  /** What a host's framework wraps around what its procedures threw, taken off before the error is answered. */
  unwrapError?: (error: unknown) => unknown;
  db: Database;
  callers: EdgeCallers<Meta, Credential, Policy, Context>;
  /** The protocols some routes speak besides the contract's JSON, handed in by the host. */
  protocols?: readonly EdgeProtocol<Credential, Policy, Meta>[];
  /** How long a request may wait for the database (credential lookup, then the procedure) before a 503. */
  dbDeadlineMs?: number;
  /** While the database is known to be down, requests get 503 at once instead of waiting for it. */
  health?: HealthSignal;
  log: Logger;
  rateLimiter: RateLimiter;
  /**
   * Makes the limiter of a route's own limit (`meta.addressLimit`), once per name, when the edge is made: the
   * server's, so that it shares the main limiter's store (Redis for several instances). By default, in memory.
   */
  routeLimiter?: (name: string, perMinute: number) => RateLimiter;
  /** A deployment's own value of a route's per-address limit, by the limit's name (`oauth-register`). */
  routeLimits?: Record<string, number>;
  /** Read the client address from X-Forwarded-For, as appended by the one proxy in front (the last entry). */
  trustProxy?: boolean;
  /** Largest request body read (413 beyond); 1 MiB by default. */
  maxBodyBytes?: number;
};

export type Edge<Meta extends EdgeRouteMeta = EdgeRouteMeta> = {
  handle: (request: EdgeRequest) => Promise<EdgeResult>;
  /** Whether a path is this edge's: one of its routes, or anything under the first segment of one (JSON 404s). */
  owns: (path: string) => boolean;
  routes: RouteTable<Meta>;
  /** Resolves once the limiters of the routes' own limits reach their store; false if one did not in time. */
  ready: (timeoutMs?: number) => Promise<boolean>;
  /** Closes the limiters of the routes' own limits (their Redis connections). */
  close: () => Promise<void>;
};

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_DB_DEADLINE_MS = 6000;

/** Where a request has got to: what the stages found that the later ones, and the protocol's wrapping, read. */
type Passage<Credential> = { request: EdgeRequest; requestId: string; credential?: Credential };

/**
 * One HTTP edge for every route a host declares, a request passing the stages of ARCHITECTURE.md's request path in
 * order: target, origin, route, health, credential, limit, preflight, body, parameters, call, finish; any stage may
 * answer instead of passing it on. Any server can mount it: the custom Node server writes its results straight to
 * the socket, fetch-style handlers turn them into a `Response`.
 *
 * Inputs are parsed here, from the document's parameter types, into values the procedure's own schema then checks:
 * the procedure sees the same input whichever route ran before, and whether it was called over REST or straight from
 * the host's own code (a tool of a protocol's endpoint).
 */
export function createEdgePipeline<
  Meta extends EdgeRouteMeta,
  Credential,
  Policy,
  Context extends { res: ResponseState },
>(options: PipelineOptions<Meta, Credential, Policy, Context>): Edge<Meta> {
  const pipeline = new Pipeline(options);
  const own = [...pipeline.own.values()];
  return {
    handle: (request) => pipeline.handle(request),
    owns: ownsPath(pipeline.routes.routes),
    routes: pipeline.routes,
    ready: async (timeoutMs) => (await Promise.all(own.map(({ limiter }) => limiter.ready(timeoutMs)))).every(Boolean),
    close: async () => {
      await Promise.allSettled(own.map(({ limiter }) => limiter.close()));
    },
  };
}

/** The stages, over what is read from the routes once: the document, each route's inputs, call and limits. */
class Pipeline<Meta extends EdgeRouteMeta, Credential, Policy, Context extends { res: ResponseState }> {
  readonly routes: RouteTable<Meta>;
  readonly own: Map<string, OwnLimit>;
  private readonly inputs: Map<EdgeRoute, RouteInputs>;
  private readonly documentText: string;
  /** Each route's call, made once. */
  private readonly calls: Map<EdgeRoute<Meta>, RouteCall<Context>>;
  /** The protocol each route speaks, if any (its meta says which, once). */
  private readonly routeProtocols: Map<EdgeRoute<Meta>, EdgeProtocol<Credential, Policy, Meta> | undefined>;
  private readonly protocolOf: (path: string) => SpokenAt<Credential, Policy, Meta> | undefined;
  private readonly maxBodyBytes: number;
  private readonly dbDeadlineMs: number;

  constructor(private readonly options: PipelineOptions<Meta, Credential, Policy, Context>) {
    this.routes = new RouteTable(options.routes);
    this.inputs = routeInputs(options.document.parsed, this.routes.routes);
    this.documentText = JSON.stringify(options.document.parsed);
    this.calls = new Map(this.routes.routes.map((route) => [route, options.call(route)]));
    const protocols = options.protocols ?? [];
    this.protocolOf = protocolsByPath(this.routes.routes, protocols);
    this.routeProtocols = new Map(
      this.routes.routes.map((route) => [route, protocols.find((candidate) => candidate.speaks(route))]),
    );
    this.own = ownLimits(this.routes.routes, options.routeLimiter, options.routeLimits);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.dbDeadlineMs = options.dbDeadlineMs ?? DEFAULT_DB_DEADLINE_MS;
  }

  async handle(request: EdgeRequest): Promise<EdgeResult> {
    const passage: Passage<Credential> = { request, requestId: request.requestId ?? randomUUID() };
    let result: EdgeResult;
    try {
      result = await this.answer(passage);
      // The protocol of the path has the last word: its error shape, its challenge, its headers.
      const spoken = this.protocolOf(request.target.split("?", 1)[0] as string);
      if (spoken?.protocol.wrap) {
        result = spoken.protocol.wrap(result, { route: spoken.route, request, credential: passage.credential });
      }
    } catch (error) {
      // The database or the rate-limit store failed outside any procedure: still the contract's JSON.
      result = this.failure(error, passage.requestId);
    }
    result.headers["x-request-id"] = passage.requestId;
    return finish(request, result);
  }

  private async answer(passage: Passage<Credential>): Promise<EdgeResult> {
    const { request } = passage;
    const { health, callers, document } = this.options;
    // Target: a URL the edge can read, and never resolves dot segments of.
    const url = parseTarget(request.target);
    if (!url || !isWellEncoded(url)) return errorResult("malformed_request", "The URL has malformed percent-encoding.");
    if (hasDotSegments(request.target)) {
      return errorResult("not_found", "No such path: the URL has . or .. segments, which are never resolved.");
    }
    const path = url.pathname;
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (method === "GET" && path === document.path) return this.documentAnswer();
    // Origin: the protocol of the path may refuse a request before anything is looked up (DNS rebinding).
    const refused = this.protocolOf(path)?.protocol.admit?.(request);
    if (refused) return refused;
    // Route, then health: a route that needs the database gets 503 at once while it is known to be down.
    const matched = this.routes.match(method, path);
    if (health && !health.up && !matched?.route.meta.noDatabase) return unavailableResult();
    // Credential (as the route's protocol takes them), then limit.
    const protocol = matched && this.routeProtocols.get(matched.route);
    let credential: Credential = await withDeadline(
      callers.credential(request, protocol?.credentials, this.address(request)),
      this.dbDeadlineMs,
    );
    if (matched && protocol?.accept) credential = protocol.accept(credential, matched.route);
    passage.credential = credential;
    const limitHeaders: Record<string, string> = {};
    const limited = await this.countRequest(matched?.route, request, credential, limitHeaders);
    if (limited) return limited;
    const result = matched
      ? await this.callRoute(matched, url, passage, credential, limitHeaders)
      : this.unrouted(path, request);
    if (matched) result.route = `${matched.route.method} ${matched.route.path}`;
    Object.assign(result.headers, limitHeaders);
    return result;
  }

  private documentAnswer(): EdgeResult {
    return {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
      body: this.documentText,
    };
  }

  /** A path no route of this method serves: 404, or the methods it has (405, or 204 to OPTIONS). */
  private unrouted(path: string, request: EdgeRequest): EdgeResult {
    const allowed = this.routes.allowedMethods(path);
    if (allowed.length === 0) return errorResult("not_found", "No such API endpoint.");
    if (request.method === "OPTIONS") return { status: 204, headers: { allow: allowed.join(", ") }, body: null };
    return errorResult("method_not_allowed", undefined, { allow: allowed.join(", ") });
  }

  /**
   * The rate limits before the route runs: the credential's budget (the address's without one), unless the route
   * counts another way, and the route's own per-address limit.
   */
  private async countRequest(
    route: EdgeRoute<Meta> | undefined,
    request: EdgeRequest,
    credential: Credential,
    headers: Record<string, string>,
  ): Promise<EdgeResult | null> {
    const limit = route?.meta.addressLimit;
    if (!limit?.instead && route?.meta.limitedBy === undefined) {
      const key = this.options.callers.limitKey(credential) ?? `ip:${this.address(request)}`;
      const refused = await consumeLimit(this.options.rateLimiter, key, headers);
      if (refused) return refused;
    }
    if (!limit) return null;
    const { limiter, perMinute } = this.own.get(limit.name) as OwnLimit;
    const message = `At most ${perMinute} of these a minute from one address.`;
    return consumeLimit(limiter, `ip:${this.address(request)}`, headers, message);
  }

  private async callRoute(
    { route, params }: RouteMatch<Meta>,
    url: URL,
    passage: Passage<Credential>,
    credential: Credential,
    limitHeaders: Record<string, string>,
  ): Promise<EdgeResult> {
    const { request, requestId } = passage;
    // Preflight: 401 and 403 before a byte of the body is read or a parameter judged (contract 5.9).
    try {
      this.options.callers.authorize(route, credential);
    } catch (error) {
      return this.failure(error, requestId);
    }
    // Body: the protocol's reading (one JSON-RPC message), else the contract's JSON, form or multipart.
    const protocol = this.routeProtocols.get(route);
    const inputs = this.inputs.get(route);
    const read =
      protocol?.readBody && BODY_METHODS.has(route.method)
        ? await protocol.readBody(request, this.maxBodyBytes)
        : await readRouteBody(route, request, this.maxBodyBytes, inputs?.formProperties ?? {});
    if (!read.ok) return read.result;
    const { body } = read;
    // Parameters: the path's and the query's, typed from the document; no NUL anywhere; an object body.
    const { values, errors } = readParameters(inputs?.params ?? [], params, url.searchParams);
    nulErrors(body, "", errors);
    if (body !== undefined && (body === null || typeof body !== "object" || Array.isArray(body))) {
      errors.body = ["must be a JSON object"];
    }
    if (Object.keys(errors).length > 0) return jsonResult(422, validationBody(errors));
    const input = { ...(body as object | undefined), ...values };
    // A route limited by what it is asked for (the account an email names) counts against that.
    const { limitedBy } = route.meta;
    if (limitedBy) {
      const subject = await withDeadline(limitedBy(this.options.db, input), this.dbDeadlineMs);
      const key = subject ?? `ip:${this.address(request)}`;
      const refused = await consumeLimit(this.options.rateLimiter, key, limitHeaders);
      if (refused) return refused;
    }
    // Call: the procedure through its own middlewares and schemas, within the database deadline.
    const context = this.options.callers.context(request, credential, requestId);
    let output: unknown;
    try {
      const call = this.calls.get(route) as RouteCall<Context>;
      output = await withDeadline(
        call(context, async () => input),
        this.dbDeadlineMs,
      );
    } catch (error) {
      return this.failure(error, requestId);
    }
    return routeAnswer(route, output, context, request);
  }

  private failure(error: unknown, requestId: string): EdgeResult {
    const { unwrapError } = this.options;
    return failureResult(unwrapError ? unwrapError(error) : error, {
      log: this.options.log,
      health: this.options.health,
      requestId,
    });
  }

  private address(request: EdgeRequest): string {
    return clientAddressOf(request.header("x-forwarded-for"), request.clientAddress, this.options.trustProxy);
  }
}

/** A procedure's output as the route's answer: JSON (already serialised, or not), or a plain output as HTTP. */
function routeAnswer(
  route: EdgeRoute,
  output: unknown,
  context: { res: ResponseState },
  request: EdgeRequest,
): EdgeResult {
  const headers = { ...context.res.headers };
  const status = context.res.status ?? route.meta.successStatus ?? 200;
  if (route.kind !== "json") return plainResult(output as PlainOutput, status, headers, request);
  if (status === 204 || output === undefined) return { status, headers, body: null };
  if (output instanceof JsonText) {
    return { status, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body: output.text };
  }
  return jsonResult(status, output, headers);
}

/** Whether a path is one of these routes', or under the first segment of one that is not an exact path. */
function ownsPath(routes: readonly EdgeRoute[]): (path: string) => boolean {
  const prefixes = [
    ...new Set(routes.filter((route) => !route.meta.exactPath).map((route) => `/${route.path.split("/")[1]}`)),
  ];
  const underPrefixes = prefixes.map((prefix) => `${prefix}/`);
  const exactPaths = new Set(routes.filter((route) => route.meta.exactPath).map((route) => route.path));
  return (path) =>
    exactPaths.has(path) ||
    prefixes.some((prefix, index) => path === prefix || path.startsWith(underPrefixes[index] as string));
}
