import { BODY_METHODS, readRouteBody } from "./body";
import { DEFAULT_MAX_BODY_BYTES, type PipelineOptions, type RouteCall } from "./edge";
import { type OwnLimit, ownLimits } from "./limits";
import { type EdgeProtocol, type ProtocolBody, protocolsByPath, type SpokenAt } from "./protocol";
import type { EdgeRequest } from "./request";
import type { EdgeResult, ResponseState } from "./results";
import { type RouteInputs, routeInputs } from "./route-inputs";
import { type EdgeRoute, type EdgeRouteMeta, RouteTable } from "./routes";

/**
 * What the edge reads of its routes once, when it is made, so that a request looks each thing up instead of working
 * it out again: the route table, the document's text, each route's inputs (typed from the document), call and
 * protocol, the protocol of each path, and the limiters of the routes' own limits.
 */
export class CompiledRoutes<Meta extends EdgeRouteMeta, Credential, Policy, Context extends { res: ResponseState }> {
  readonly table: RouteTable<Meta>;
  /** The OpenAPI document as the edge serves it, written out once. */
  readonly documentText: string;
  /** The protocol a path's routes speak, whatever the request's method. */
  readonly protocolOf: (path: string) => SpokenAt<Credential, Policy, Meta> | undefined;
  /** The limiters of the routes' own limits (`meta.addressLimit`), by name. */
  readonly own: Map<string, OwnLimit>;
  private readonly inputs: Map<EdgeRoute, RouteInputs>;
  private readonly calls: Map<EdgeRoute<Meta>, RouteCall<Context>>;
  private readonly protocols: Map<EdgeRoute<Meta>, EdgeProtocol<Credential, Policy, Meta> | undefined>;
  private readonly maxBodyBytes: number;

  constructor(options: PipelineOptions<Meta, Credential, Policy, Context>) {
    this.table = new RouteTable(options.routes);
    const routes = this.table.routes;
    this.inputs = routeInputs(options.document.parsed, routes);
    this.documentText = JSON.stringify(options.document.parsed);
    this.calls = new Map(routes.map((route) => [route, options.call(route)]));
    const protocols = options.protocols ?? [];
    this.protocolOf = protocolsByPath(routes, protocols);
    this.protocols = new Map(routes.map((route) => [route, protocols.find((candidate) => candidate.speaks(route))]));
    this.own = ownLimits(routes, options.routeLimiter, options.routeLimits);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  /** The protocol a route speaks, if any (its meta says which, once). */
  protocol(route: EdgeRoute<Meta>): EdgeProtocol<Credential, Policy, Meta> | undefined {
    return this.protocols.get(route);
  }

  /** The route's call, made when the edge was. */
  call(route: EdgeRoute<Meta>): RouteCall<Context> {
    return this.calls.get(route) as RouteCall<Context>;
  }

  /** How the route's path and query parameters and form fields are typed. */
  inputsOf(route: EdgeRoute<Meta>): RouteInputs | undefined {
    return this.inputs.get(route);
  }

  /**
   * The route's body, up to the edge's largest (`maxBodyBytes`): its protocol's reading (one JSON-RPC message), else
   * the contract's JSON, form or multipart.
   */
  readBody(route: EdgeRoute<Meta>, request: EdgeRequest): Promise<ProtocolBody> {
    const protocol = this.protocols.get(route);
    return protocol?.readBody && BODY_METHODS.has(route.method)
      ? protocol.readBody(request, this.maxBodyBytes)
      : readRouteBody(route, request, this.maxBodyBytes, this.inputs.get(route)?.formProperties ?? {});
  }

  /**
   * The answer in the terms of the protocol of the request's path (whatever its method), which has the last word: its
   * error shape, its challenge, its headers.
   */
  wrap(result: EdgeResult, request: EdgeRequest, credential: Credential | undefined): EdgeResult {
    const spoken = this.protocolOf(request.target.split("?", 1)[0] as string);
    return spoken?.protocol.wrap ? spoken.protocol.wrap(result, { route: spoken.route, request, credential }) : result;
  }

  /** Resolves once the limiters of the routes' own limits reach their store; false if one did not in time. */
  async ready(timeoutMs?: number): Promise<boolean> {
    return (await Promise.all([...this.own.values()].map(({ limiter }) => limiter.ready(timeoutMs)))).every(Boolean);
  }

  /** Closes the limiters of the routes' own limits (their Redis connections). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.own.values()].map(({ limiter }) => limiter.close()));
  }
}
