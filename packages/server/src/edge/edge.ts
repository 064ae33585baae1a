import type { Database } from "@shelf/db";
import type { Logger } from "../log";
import type { RateLimiter } from "../rate-limit";
import type { HealthSignal } from "./failure";
import type { EdgeProtocol } from "./protocol";
import type { EdgeRequest } from "./request";
import type { EdgeResult, ResponseState } from "./results";
import type { OpenApiPaths } from "./route-inputs";
import type { EdgeRoute, EdgeRouteMeta, RouteTable } from "./routes";

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

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_DB_DEADLINE_MS = 6000;
