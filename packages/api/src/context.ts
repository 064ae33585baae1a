import type { Database } from "@shelf/db";
import type { ResponseState } from "@shelf/server/edge/results";
import type { Logger } from "@shelf/server/log";
import type { AnyCaller, Credential } from "./auth/caller";
import type { GuessLimits } from "./auth/guess-limits";
import type { Delivery } from "./delivery";
import type { OAuthSettings } from "./oauth/settings";
import type { PublicDisclosureData } from "./schemas/disclosure";

/** One JSON-RPC message as the endpoint received it (checked by the procedure's input schema first). */
export type RpcMessage = { jsonrpc?: "2.0"; id?: string | number; method?: string; params?: unknown };

/** What a procedure of an MCP endpoint has: its caller, and the HTTP request it speaks over. */
export type McpContext = Context & { caller: AnyCaller; http: NonNullable<Context["http"]> };

/**
 * An MCP endpoint's serving code (`mcp/endpoint.ts`: the account MCP's, the design MCP's), handed in by the entry
 * point that serves it: the endpoint's procedures call it once the edge has done its part.
 */
export type McpEndpoint = {
  /**
   * Serves one JSON-RPC message: the answer (undefined for a notification or a response, `ctx.res.status` 202), the
   * session opened by initialize in `Mcp-Session-Id`; refusals are domain errors the edge answers in JSON-RPC.
   */
  post: (ctx: McpContext, message: RpcMessage) => Promise<unknown>;
  /** Ends the request's session (`Mcp-Session-Id`), if it is this credential's (an endpoint with sessions). */
  end: (ctx: McpContext) => Promise<void>;
};

export type { ResponseState } from "@shelf/server/edge/results";

export type Context = {
  db: Database;
  credential: Credential;
  /** Public base URL of the API host, for links in responses. */
  baseUrl: string;
  /** Artifact storage, download links and signing: set by entry points that deliver files. */
  delivery?: Delivery;
  /** The request's Accept-Language, for the answers that speak Korean and English. */
  acceptLanguage?: string;
  /** The brand prefix of keys this service issues (`SHELF_KEY_PREFIX`). */
  keyBrand: string;
  /** The business disclosure this deployment publishes, if it does. */
  disclosure?: PublicDisclosureData;
  /** Limits on guessing (passwords, user codes): set by the account pages, which take those guesses. */
  guessLimits?: GuessLimits;
  /** The entry point's log, for what a procedure must report beyond its answer (a collect run's failed replay). */
  log?: Logger;
  /** How long the design host's collection lock lasts without an upload (`SHELF_COLLECT_LEASE_SECONDS`). */
  collectLeaseSeconds?: number;
  /** The authorization server's settings: set by the entry point that serves its endpoints. */
  oauth?: OAuthSettings;
  /** The MCP endpoint's serving code: set by the entry point that serves one (`/api/mcp`, the design host's `/mcp`). */
  mcp?: McpEndpoint;
  /** The HTTP request's headers and id, for the procedures that speak a protocol over it (the MCP endpoint). */
  http?: { header: (name: string) => string | undefined; requestId: string };
  res: ResponseState;
};

/** A context's parts as an entry point gives them: the key brand defaults, the response starts empty. */
export type CreateContextOptions = Omit<Context, "keyBrand" | "res"> & { keyBrand?: string };

/** The brand of keys when an entry point names none (the default of `SHELF_KEY_PREFIX`). */
export const DEFAULT_KEY_BRAND = "shelf";

export function createContext(options: CreateContextOptions): Context {
  return { ...options, keyBrand: options.keyBrand ?? DEFAULT_KEY_BRAND, res: { headers: {} } };
}

/** What an entry point was built with, for a procedure that cannot work without it: it fails loudly when missing. */
function builtWith<K extends "guessLimits" | "delivery" | "oauth" | "mcp">(
  ctx: Pick<Context, K>,
  key: K,
  what: string,
): NonNullable<Context[K]> {
  const value = ctx[key];
  if (!value) throw new Error(`This entry point was built without ${what}.`);
  return value as NonNullable<Context[K]>;
}

/** The guessing limits of an entry point that takes guesses; a procedure that needs them fails loudly without. */
export function guessLimitsOf(ctx: Pick<Context, "guessLimits">): GuessLimits {
  return builtWith(ctx, "guessLimits", "guessing limits (guessLimits)");
}

/**
 * The delivery services (artifact store, links, signing keys) of the entry point that called: a procedure that
 * delivers files or signs asks for them here. A plain function rather than a middleware, which would cost a level of
 * tRPC's chain on every such request.
 */
export function deliveryOf(ctx: Pick<Context, "delivery">): Delivery {
  return builtWith(ctx, "delivery", "delivery (artifact store, links, signing)");
}

/** The authorization server's settings of the entry point that called; its endpoints fail loudly without. */
export function oauthOf(ctx: Pick<Context, "oauth">): OAuthSettings {
  return builtWith(ctx, "oauth", "the authorization server's settings (oauth)");
}

/** The MCP endpoint of the entry point that called; its procedures fail loudly without. */
export function mcpOf(ctx: Pick<Context, "mcp">): McpEndpoint {
  return builtWith(ctx, "mcp", "its MCP endpoint (mcp)");
}
