import { randomUUID } from "node:crypto";
import { withDeadline } from "@shelf/db";
import { clientAddressOf } from "./address";
import { documentAnswer, ownsPath, routeAnswer, unrouted } from "./answers";
import { CompiledRoutes } from "./compiled-routes";
import { DEFAULT_DB_DEADLINE_MS, type Edge, type PipelineOptions } from "./edge";
import { failureResult, unavailableResult } from "./failure";
import { finish } from "./finish";
import { countRequest, countSubject, type EdgeLimits } from "./limits";
import { type EdgeRequest, readTarget } from "./request";
import type { EdgeResult, ResponseState } from "./results";
import { readInput } from "./route-inputs";
import type { EdgeRouteMeta, RouteMatch } from "./routes";

export { DEFAULT_DB_DEADLINE_MS, type Edge, type EdgeCallers, type PipelineOptions, type RouteCall } from "./edge";
export type { HealthSignal } from "./failure";

/** Where a request has got to: what the stages found that the later ones, and the protocol's wrapping, read. */
type Passage<Credential> = { request: EdgeRequest; requestId: string; address: string; credential?: Credential };

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
  const { table } = pipeline.compiled;
  return {
    handle: (request) => pipeline.handle(request),
    owns: ownsPath(table.routes),
    routes: table,
    ready: (timeoutMs) => pipeline.compiled.ready(timeoutMs),
    close: () => pipeline.compiled.close(),
  };
}

/** The stages, over what is read from the routes once (`CompiledRoutes`): each stage one short step of `answer`. */
class Pipeline<Meta extends EdgeRouteMeta, Credential, Policy, Context extends { res: ResponseState }> {
  readonly compiled: CompiledRoutes<Meta, Credential, Policy, Context>;
  private readonly dbDeadlineMs: number;
  private readonly limits: EdgeLimits;

  constructor(private readonly options: PipelineOptions<Meta, Credential, Policy, Context>) {
    this.compiled = new CompiledRoutes(options);
    this.dbDeadlineMs = options.dbDeadlineMs ?? DEFAULT_DB_DEADLINE_MS;
    const { rateLimiter, db } = options;
    this.limits = { rateLimiter, own: this.compiled.own, db, deadlineMs: this.dbDeadlineMs };
  }

  async handle(request: EdgeRequest): Promise<EdgeResult> {
    const address = clientAddressOf(request.header("x-forwarded-for"), request.clientAddress, this.options.trustProxy);
    const passage: Passage<Credential> = { request, requestId: request.requestId ?? randomUUID(), address };
    let result: EdgeResult;
    try {
      result = await this.answer(passage);
      // The protocol of the path has the last word: its error shape, its challenge, its headers.
      result = this.compiled.wrap(result, request, passage.credential);
    } catch (error) {
      // The database or the rate-limit store failed outside any procedure: still the contract's JSON.
      result = this.failure(error, passage.requestId);
    }
    // Finish: what every answer gets (its request's id, nosniff, a weak ETag, its length, no body for HEAD).
    result.headers["x-request-id"] = passage.requestId;
    return finish(request, result);
  }

  private async answer(passage: Passage<Credential>): Promise<EdgeResult> {
    const { request, address } = passage;
    const { compiled, options } = this;
    // Target: a URL the edge can read, and never resolves dot segments of.
    const target = readTarget(request.target);
    if (!target.ok) return target.result;
    const { url } = target;
    const path = url.pathname;
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (method === "GET" && path === options.document.path) return documentAnswer(compiled.documentText);
    // Origin: the protocol of the path may refuse a request before anything is looked up (DNS rebinding).
    const refused = compiled.protocolOf(path)?.protocol.admit?.(request);
    if (refused) return refused;
    // Route, then health: a route that needs the database gets 503 at once while it is known to be down.
    const matched = compiled.table.match(method, path);
    if (options.health && !options.health.up && !matched?.route.meta.noDatabase) return unavailableResult();
    // Credential (as the route's protocol takes them), then limit.
    const protocol = matched && compiled.protocol(matched.route);
    const read = options.callers.credential(request, protocol?.credentials, address);
    let credential: Credential = await withDeadline(read, this.dbDeadlineMs);
    if (matched && protocol?.accept) credential = protocol.accept(credential, matched.route);
    passage.credential = credential;
    const limitHeaders: Record<string, string> = {};
    const credentialKey = () => options.callers.limitKey(credential);
    const limited = await countRequest(matched?.route, this.limits, credentialKey, address, limitHeaders);
    if (limited) return limited;
    const result = matched
      ? await this.callRoute(matched, url, passage, credential, limitHeaders)
      : unrouted(compiled.table, path, request);
    if (matched) result.route = `${matched.route.method} ${matched.route.path}`;
    Object.assign(result.headers, limitHeaders);
    return result;
  }

  private async callRoute(
    { route, params }: RouteMatch<Meta>,
    url: URL,
    { request, requestId, address }: Passage<Credential>,
    credential: Credential,
    limitHeaders: Record<string, string>,
  ): Promise<EdgeResult> {
    const { compiled, options } = this;
    // Preflight: 401 and 403 before a byte of the body is read or a parameter judged (contract 5.9).
    try {
      options.callers.authorize(route, credential);
    } catch (error) {
      return this.failure(error, requestId);
    }
    // Body: the protocol's reading (one JSON-RPC message), else the contract's JSON, form or multipart.
    const read = await compiled.readBody(route, request);
    if (!read.ok) return read.result;
    // Parameters: the path's and the query's, typed from the document; no NUL anywhere; an object body.
    const parsed = readInput(compiled.inputsOf(route), params, url.searchParams, read.body);
    if (!parsed.ok) return parsed.result;
    const { input } = parsed;
    // A route limited by what it is asked for (the account an email names) counts against that.
    const limited = await countSubject(route, input, this.limits, address, limitHeaders);
    if (limited) return limited;
    // Call: the procedure through its own middlewares and schemas, within the database deadline.
    const context = options.callers.context(request, credential, requestId);
    let output: unknown;
    try {
      const call = compiled.call(route);
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
    const { unwrapError, log, health } = this.options;
    return failureResult(unwrapError ? unwrapError(error) : error, { log, health, requestId });
  }
}
