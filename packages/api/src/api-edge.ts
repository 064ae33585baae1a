import { createEdgePipeline, type Edge, type PipelineOptions } from "@shelf/server/edge/pipeline";
import type { EdgeProtocol } from "@shelf/server/edge/protocol";
import type { AnyRouter } from "@trpc/server";
import type { Credential } from "./auth/caller";
import { credentialKey } from "./auth/caller";
import { accountApiPolicy, type CredentialPolicy, resolveCredential } from "./auth/credential";
import { type BaseContext, createContext } from "./context";
import { directCall } from "./edge/direct";
import { buildOpenApiDocument, type DocumentInfo, type OpenApiDocument } from "./edge/openapi";
import { collectRoutes } from "./edge/routes";
import { unwrapTrpcError } from "./errors";
import { authorize, authorizeDesign } from "./procedures/authorize";
import type { PublicDisclosureData } from "./schemas/disclosure";
import type { Meta } from "./trpc";

/** A protocol this API's routes speak over the edge (protocols/): its credentials as this API's policies. */
export type ApiProtocol = EdgeProtocol<Credential, CredentialPolicy, Meta>;

/** An edge of this API: the kit's pipeline over a router's routes, with the OpenAPI document they are read from. */
export type ApiEdge = Edge<Meta> & { document: OpenApiDocument };

export type EdgeOptions<Services extends object = object> = Omit<
  PipelineOptions<Meta, Credential, CredentialPolicy, BaseContext>,
  "callers" | "protocols" | "routes" | "call" | "document" | "unwrapError"
> & {
  /** The routers whose procedures declare REST routes in their meta. */
  router: AnyRouter;
  /** Public base URL, for the document's server. */
  baseUrl: string;
  /** Where the OpenAPI document is served, and its title. */
  document?: { path: string; info: DocumentInfo };
  /** Which bearer credentials are read and accepted; by default account API keys only. */
  credentials?: CredentialPolicy;
  /** The protocols some of the router's routes speak (protocols/: OAuth's endpoints, MCP); none by default. */
  protocols?: readonly ApiProtocol[];
  /** The brand prefix of keys issued through this edge (`SHELF_KEY_PREFIX`). */
  keyBrand?: string;
  /** The business disclosure the public lookups answer with. */
  disclosure?: PublicDisclosureData;
  /**
   * What the host hands its procedures besides the base context (`AccountServices`, `DesignServices`): each host's
   * edge (account-api.ts, design-api.ts) names its own type, so one that lacks a service does not compile.
   */
  services?: Services;
};

/** What a host's edge is made with (account-api.ts, design-api.ts): all but what the host itself decides. */
export type HostEdgeOptions = Omit<EdgeOptions, "router" | "credentials" | "document" | "services" | "protocols"> & {
  /**
   * Host names (with port) the MCP endpoint's requests may name besides the base URL's; loopback ones are added for
   * a loopback base (DNS rebinding protection).
   */
  allowedHosts?: readonly string[];
};

/**
 * The edge for a router of this API: the kit's pipeline (@shelf/server/edge/pipeline.ts) over the router's routes,
 * read from its procedures' meta and described in its OpenAPI document, each called without tRPC's generic runner
 * (`directCall`: the same levels, leaner), and told who this API's callers are: the credential a request carries
 * (account API keys by default, a protocol's own policy for its routes), its rate limit key, the route's
 * authorization (an account ability, product and key scope, or a design role), and the context its procedures get.
 */
export function createEdge<Services extends object>(options: EdgeOptions<Services>): ApiEdge {
  const policy = options.credentials ?? accountApiPolicy;
  const { router } = options;
  const routes = collectRoutes(router);
  const info = options.document?.info ?? { title: "API", description: "", version: "1" };
  const document = buildOpenApiDocument(router, routes, options.baseUrl, info);
  const edge = createEdgePipeline<Meta, Credential, CredentialPolicy, BaseContext>({
    ...options,
    routes,
    call: (route) => directCall(router, route.procedure),
    document: { parsed: document, path: options.document?.path },
    unwrapError: unwrapTrpcError,
    callers: {
      credential: (request, protocolPolicy, address) =>
        resolveCredential(options.db, request.header("authorization"), protocolPolicy ?? policy, address),
      limitKey: (credential) => (credential.status === "valid" ? credentialKey(credential.caller) : undefined),
      authorize: (route, credential) =>
        route.meta.role ? authorizeDesign(route.meta, credential) : authorize(route.meta, credential),
      context: (request, credential, requestId) =>
        createContext({
          db: options.db,
          credential,
          baseUrl: options.baseUrl,
          acceptLanguage: request.header("accept-language"),
          keyBrand: options.keyBrand,
          disclosure: options.disclosure,
          log: options.log,
          http: { header: request.header, requestId },
          ...options.services,
        }),
    },
  });
  return { ...edge, document };
}
