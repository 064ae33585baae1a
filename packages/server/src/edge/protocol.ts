import type { EdgeRequest } from "./request";
import type { EdgeResult } from "./results";
import type { EdgeRoute, EdgeRouteMeta } from "./routes";

/** A body read a protocol's own way, or the answer that refuses it. */
export type ProtocolBody = { ok: true; body: unknown } | { ok: false; result: EdgeResult };

/**
 * A protocol some routes speak over the edge besides the contract's JSON (an authorization server's endpoints, a
 * JSON-RPC endpoint), handed in by the host that serves them: the edge knows none by name. The protocol of a request's
 * path (whatever its method) admits the request first and has the last word on its answer; the protocol of the
 * matched route reads its body.
 */
export type EdgeProtocol<Credential, Policy = unknown, Meta extends EdgeRouteMeta = EdgeRouteMeta> = {
  /** Whether a route speaks it, from its meta. */
  speaks: (route: EdgeRoute<Meta>) => boolean;
  /** Which credentials its routes take, as the host's credential reader knows them (its default otherwise). */
  credentials?: Policy;
  /** The credential as its routes take it: one the protocol refuses (a token for another resource) made invalid. */
  accept?: (credential: Credential, route: EdgeRoute<Meta>) => Credential;
  /** A refusal before the route is matched or a credential read (a page elsewhere reaching the endpoint), or none. */
  admit?: (request: EdgeRequest) => EdgeResult | undefined;
  /** Reads a body method's body (one JSON-RPC message) instead of the contract's JSON, form or multipart reading. */
  readBody?: (request: EdgeRequest, maxBodyBytes: number) => Promise<ProtocolBody>;
  /** The answer in the protocol's terms: its error shape, its challenge, its CORS headers. */
  wrap?: (
    result: EdgeResult,
    answered: { route: EdgeRoute<Meta>; request: EdgeRequest; credential: Credential | undefined },
  ) => EdgeResult;
};

/** A protocol with the route of a path that speaks it, whatever the request's method. */
export type SpokenAt<Credential, Policy, Meta extends EdgeRouteMeta> = {
  protocol: EdgeProtocol<Credential, Policy, Meta>;
  route: EdgeRoute<Meta>;
};

/**
 * Finds which of the protocols a path's routes speak (the first route of that path, any method): a lookup for paths
 * written out, a scan for those with parameters.
 */
export function protocolsByPath<Credential, Policy, Meta extends EdgeRouteMeta>(
  routes: readonly EdgeRoute<Meta>[],
  protocols: readonly EdgeProtocol<Credential, Policy, Meta>[],
): (path: string) => SpokenAt<Credential, Policy, Meta> | undefined {
  const spoken = routes.flatMap((route) => {
    const protocol = protocols.find((candidate) => candidate.speaks(route));
    return protocol ? [{ protocol, route }] : [];
  });
  const exact = new Map<string, SpokenAt<Credential, Policy, Meta>>();
  for (const entry of spoken) {
    if (entry.route.params.length === 0 && !exact.has(entry.route.path)) exact.set(entry.route.path, entry);
  }
  const patterned = spoken.some((entry) => entry.route.params.length > 0);
  return (path) =>
    patterned
      ? spoken.find(({ route }) => (route.params.length === 0 ? route.path === path : route.pattern.test(path)))
      : exact.get(path);
}
