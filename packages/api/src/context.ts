import type { Database } from "@shelf/db";
import type { ResponseState } from "@shelf/server/edge/results";
import type { Logger } from "@shelf/server/log";
import type { AnyCaller, Credential } from "./auth/caller";
import type { GuessLimits } from "./auth/guess-limits";
import type { Delivery } from "./delivery";
import type { OAuthSettings } from "./oauth/settings";
import type { PublicDisclosureData } from "./schemas/disclosure";

export type { ResponseState } from "@shelf/server/edge/results";

/** One JSON-RPC message as the endpoint received it (checked by the procedure's input schema first). */
export type RpcMessage = { jsonrpc?: "2.0"; id?: string | number; method?: string; params?: unknown };

/** The HTTP request a procedure was called over: its headers and id (the protocols spoken over it read them). */
export type HttpRequestOf = { header: (name: string) => string | undefined; requestId: string };

/** What every procedure of every host gets, whoever called it: over HTTP through a host's edge, or from a page. */
export type BaseContext = {
  db: Database;
  credential: Credential;
  /** Public base URL of the host, for links in responses. */
  baseUrl: string;
  /** The request's Accept-Language, for the answers that speak Korean and English. */
  acceptLanguage?: string;
  /** The brand prefix of keys this service issues (`SHELF_KEY_PREFIX`). */
  keyBrand: string;
  /** The business disclosure this deployment publishes, if it does. */
  disclosure?: PublicDisclosureData;
  /** The entry point's log, for what a procedure must report beyond its answer (a collect run's failed replay). */
  log?: Logger;
  /** The HTTP request, when the procedure was called over one (not from a page's server code). */
  http?: HttpRequestOf;
  res: ResponseState;
};

/** What a procedure of an MCP endpoint has: its caller, and the HTTP request it speaks over. */
export type McpContext = BaseContext & { caller: AnyCaller; http: HttpRequestOf };

/**
 * An MCP endpoint's serving code (`mcp/endpoint.ts`: the account MCP's, the design MCP's), made by its host's edge:
 * the endpoint's procedures call it once the edge has done its part.
 */
export type McpEndpoint = {
  /**
   * Serves one JSON-RPC message: the answer (undefined for a notification or a response, `ctx.res.status` 202), the
   * session opened by initialize in `Mcp-Session-Id`; refusals are domain errors the edge answers in JSON-RPC. `ctx`
   * is the endpoint procedure's whole context, from which its tools' calls take their host's services.
   */
  post: (ctx: McpContext, message: RpcMessage) => Promise<unknown>;
  /** Ends the request's session (`Mcp-Session-Id`), if it is this credential's (an endpoint with sessions). */
  end: (ctx: McpContext) => Promise<void>;
};

/**
 * What the account host (apps/web) hands its procedures besides the base, whether its edge or its pages call them:
 * artifact storage, download links and signing (`delivery`); limits on guessing passwords and user codes, which the
 * account pages take (`guessLimits`); the authorization server's settings (`oauth`: issuer, resource, the secret
 * refresh tokens are derived with); the account MCP's serving code (`mcp`, `/api/mcp`). Every entry point gives all
 * of it: the type system holds them to it, so no procedure checks at run time.
 */
export type AccountServices = { delivery: Delivery; guessLimits: GuessLimits; oauth: OAuthSettings; mcp: McpEndpoint };

/** What the design host hands its procedures besides the base; only its edge calls them, always over HTTP. */
export type DesignServices = {
  /** Artifact storage: the captures and assets of collect runs, the gallery's images. */
  delivery: Delivery;
  /** The design MCP's serving code (`/mcp`). */
  mcp: McpEndpoint;
  /** How long the collection lock lasts without an upload (`SHELF_COLLECT_LEASE_SECONDS`). */
  collectLeaseSeconds: number;
};

/** The account host's procedures' context (the app router's: the account API, its pages, OAuth, the account MCP). */
export type AccountContext = BaseContext & AccountServices;

/** The design host's procedures' context (the design router's: the agent API, the gallery, the design MCP). */
export type DesignContext = BaseContext & DesignServices & { http: HttpRequestOf };

/** A context's parts as an entry point gives them: the key brand defaults, the response starts empty. */
export type CreateContextOptions<Services> = Omit<BaseContext, "keyBrand" | "res"> & { keyBrand?: string } & Services;

/** The brand of keys when an entry point names none (the default of `SHELF_KEY_PREFIX`). */
export const DEFAULT_KEY_BRAND = "shelf";

/** A host's context for one call: the base it is given, its services, its key brand, an empty response. */
export function createContext<Services extends object>(
  options: CreateContextOptions<Services>,
): BaseContext & Services {
  return { ...options, keyBrand: options.keyBrand ?? DEFAULT_KEY_BRAND, res: { headers: {} } };
}
