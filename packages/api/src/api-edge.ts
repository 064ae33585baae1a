import { createEdgePipeline, type Edge, type PipelineOptions } from "@shelf/server/edge/pipeline";
import type { EdgeProtocol } from "@shelf/server/edge/protocol";
import type { AnyRouter } from "@trpc/server";
import type { Credential } from "./auth/caller";
import { credentialKey } from "./auth/caller";
import { accountApiPolicy, type CredentialPolicy, resolveCredential } from "./auth/credential";
import { type Context, createContext, type McpEndpoint } from "./context";
import type { Delivery } from "./delivery";
import { directCall } from "./edge/direct";
import { buildOpenApiDocument, type DocumentInfo, type OpenApiDocument } from "./edge/openapi";
import { collectRoutes } from "./edge/routes";
import { unwrapTrpcError } from "./errors";
import type { OAuthSettings } from "./oauth/settings";
import { authorize, authorizeDesign } from "./procedures/authorize";
import type { PublicDisclosureData } from "./schemas/disclosure";
import type { Meta } from "./trpc";

/** A protocol this API's routes speak over the edge (protocols/): its credentials as this API's policies. */
export type ApiProtocol = EdgeProtocol<Credential, CredentialPolicy, Meta>;

/** An edge of this API: the kit's pipeline over a router's routes, with the OpenAPI document they are read from. */
export type ApiEdge = Edge<Meta> & { document: OpenApiDocument };

export type EdgeOptions = Omit<
  PipelineOptions<Meta, Credential, CredentialPolicy, Context>,
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
  /** Artifact storage, download links and signing, for the procedures that deliver files. */
  delivery?: Delivery;
  /** The brand prefix of keys issued through this edge (`SHELF_KEY_PREFIX`). */
  keyBrand?: string;
  /** The business disclosure the public lookups answer with. */
  disclosure?: PublicDisclosureData;
  /** The authorization server's settings, for its endpoints (issuer, resource, key brand, metadata documents). */
  oauth?: OAuthSettings;
  /** The design host's collection lock length (`SHELF_COLLECT_LEASE_SECONDS`); 600 seconds when unset. */
  collectLeaseSeconds?: number;
  /** The MCP endpoint's serving code, for the routes that declare `meta.mcp`. */
  mcp?: McpEndpoint;
};

/** What a host's edge is made with (account-api.ts, design-api.ts): all but what the host itself decides. */
export type HostEdgeOptions = Omit<EdgeOptions, "router" | "credentials" | "document" | "mcp" | "protocols"> & {
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
export function createEdge(options: EdgeOptions): ApiEdge {
  const policy = options.credentials ?? accountApiPolicy;
  const { router } = options;
  const routes = collectRoutes(router);
  const info = options.document?.info ?? { title: "API", description: "", version: "1" };
  const document = buildOpenApiDocument(router, routes, options.baseUrl, info);
  const edge = createEdgePipeline<Meta, Credential, CredentialPolicy, Context>({
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
          delivery: options.delivery,
          acceptLanguage: request.header("accept-language"),
          keyBrand: options.keyBrand,
          disclosure: options.disclosure,
          log: options.log,
          collectLeaseSeconds: options.collectLeaseSeconds,
          oauth: options.oauth,
          mcp: options.mcp,
          http: { header: request.header, requestId },
        }),
    },
  });
  return { ...edge, document };
}
