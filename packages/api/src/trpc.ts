import type { Database } from "@shelf/db";
import type { DesignRole } from "@shelf/db/enums";
import type { EdgeRouteMeta, HttpMethod } from "@shelf/server/edge/routes";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { AccountAbility } from "./abilities";
import type { AccountContext, DesignContext } from "./context";
import type { Delivery } from "./delivery";
import type { DomainErrorCode } from "./errors";

export type { HttpMethod } from "@shelf/server/edge/routes";

/** A plain REST route: answered by the edge from the procedure's PlainOutput (files, CSS, feeds, redirects). */
export type PlainRouteMeta = {
  method: HttpMethod;
  /** The full path with `{param}` segments; a last segment written `{name+}` also takes slashes. */
  path: string;
  /** Content types of the success answer, as the document lists them. */
  contentTypes: string[];
  summary: string;
  description?: string;
  tags: string[];
};

/** What a route's example is built for: an account entitled to a product, on a database of the test's own. */
export type ExampleContext = { db: Database; accountId: number; productId: number; delivery: Delivery };

/** A valid request for one route, in parts; the security matrix sends it with every kind of wrong credential. */
export type RequestExample = {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * The key the success row sends instead of the matrix's own full key: for a route that needs a key of its own
   * kind (a product key) or revokes the key it is called with.
   */
  key?: string;
};

/**
 * One row of a list in a procedure's answer: `list` is the answer's property holding it (dotted when nested, empty
 * when the answer is the list).
 */
export type ListedRow = { list: string; row: Record<string, unknown> };

export type RouteExample = {
  /** Creates what the request names (an order, a release) for the account and returns the request. */
  build?: (context: ExampleContext) => Promise<RequestExample> | RequestExample;
  /**
   * For a read that lists the account's rows: creates a row of each of its lists for the context's account and
   * returns what identifies each in the answer (`{ list: "orders", row: { id } }`). The security matrix creates
   * them for the caller, whose answer must show them, and for another buyer of the product, whose must not appear.
   */
  listed?: (context: ExampleContext) => Promise<ListedRow[]>;
  /** Path parameters that name nothing, for the missing-target row (default: 2000000000, or `no-such-target`). */
  missing?: Record<string, string | number>;
  /**
   * Whose the named target is. `account` (default): the caller's own, invisible to other accounts. `product`: the
   * product's, seen alike by every buyer of it (releases, content assets). `public`: everyone's (lineages).
   * `signed`: named by a signed token, so a
   * forged one is refused (403) rather than looked up.
   */
  target?: "account" | "product" | "public" | "signed";
};

/**
 * What a design route's example is built for: a design token holding every role, on a test database of its own, and
 * the delivery (artifact store) the edge under test serves files from.
 */
export type DesignExampleContext = { db: Database; agent: { tokenId: number; name: string }; delivery: Delivery };

export type DesignRouteExample = {
  /** Creates what the request names (a document, a run) and returns the request; a multipart body is a FormData. */
  build?: (context: DesignExampleContext) => Promise<RequestExample> | RequestExample;
  /** Path parameters that name nothing, for the missing-target row (default: 2000000000, or `no-such-target`). */
  missing?: Record<string, string | number>;
  /**
   * Whose the named target is. `shared` (default): every token with the role sees it (documents). `family`: the
   * tokens of the opener's name only, so a token of another name gets 404 (collect runs). `created`: the path names
   * what the request creates, so a missing target is no error (a new document's first version).
   */
  target?: "shared" | "family" | "created";
};

/**
 * What every route declares besides who may call it (`AccountAccess` or `DesignAccess`): what the edge reads
 * (`EdgeRouteMeta`: limits, bodies, success status), and what the API's document, matrices and MCP read.
 */
export type RouteMeta = EdgeRouteMeta & {
  /**
   * The call takes away something the account had (a key it replaces, a seat it gives up): MCP clients are told
   * (`destructiveHint`) and may ask the person first. DELETE routes are destructive without saying so.
   */
  destructive?: boolean;
  /** A POST that is safe to repeat (a retry is the same record): MCP clients are told (`idempotentHint`). */
  idempotent?: boolean;
  /**
   * An endpoint of the authorization server (RFC 6749, 7591, 7009, 8414, 9728): every refusal is answered in OAuth's
   * terms (`error` one of OAuth's codes, `error_description`, and the contract's `message`), an invalid input as
   * `invalidInput` with 400 instead of 422, and browsers of any origin may call it (CORS: no cookie is read).
   */
  oauth?: { invalidInput: "invalid_request" | "invalid_client_metadata" };
  /**
   * An MCP endpoint (Streamable HTTP, JSON answers), served by the MCP protocol its host hands in (protocols/mcp.ts):
   * Host and Origin checked before anything (DNS rebinding), the host's MCP credentials (the account MCP: keys and
   * the access tokens of sign-in issued for this route's URL only, RFC 8707; the design MCP: design tokens), the
   * body read as one JSON-RPC message (a batch refused), every refusal a JSON-RPC error from the one error table
   * except 401 and 403, which keep the contract's body beside the host's Bearer challenge (RFC 6750, RFC 9728).
   * `defaultScopes`: what the account MCP's 401 asks for (a design token has no scopes).
   */
  mcp?: {
    defaultScopes?: readonly AccountAbility[];
    /** The endpoint keeps sessions (`Mcp-Session-Id` from initialize on); a stateless one does not. */
    sessions?: true;
  };
  /** Another success status the procedure may choose (`ctx.res.status`), with what it means; documented beside. */
  alternateSuccess?: { status: 200 | 201 | 202; description: string };
  /** A plain (non-JSON) route: a file, CSS, a feed, a redirect. Served by the edge through the same procedure. */
  plain?: PlainRouteMeta;
  /**
   * For a read whose answer holds lists of rows that are not the caller account's: `product`, the product's, alike
   * for every buyer (releases, assets); `everyone`, what every caller sees alike (the catalog, the revocations). A
   * list of the account's rows declares `example.listed` instead; the security matrix refuses a read that holds
   * lists and declares neither.
   */
  listing?: "product" | "everyone";
  /** Error codes this endpoint answers beyond those its ability and product rules imply; the document lists them. */
  errors?: DomainErrorCode[];
  /**
   * How to build a valid request (`build`), needed by every route with a path parameter other than `{product}`, and
   * the account's rows a read lists (`listed`), needed by every read of the account's lists, REST or pages: the
   * security matrix gets its success, cross-account and foreign-row checks from here.
   */
  example?: RouteExample;
  /** The design host's counterpart of `example`: the design security matrix's success and missing-target rows. */
  designExample?: DesignRouteExample;
};

/**
 * Who may call an account route (the account API, its pages, OAuth and the account MCP): an ability, with the
 * product and key-scope rules; never a design role.
 */
export type AccountAccess = {
  /**
   * What the caller must hold. An ability: a caller with it. `any-key`: any valid caller. `public`: nothing.
   * `signed-in`: a person signed in to the account pages, never a key or a token (managing keys, approving a device).
   * A procedure that declares nothing is refused to everyone (default-deny).
   */
  ability?: AccountAbility | "any-key" | "public" | "signed-in";
  /**
   * Open without a key (contract 5.12, `optional_account_api_key`): a request without one is let through as
   * anonymous, while a key that is sent is still checked (401 when unknown, 403 without the ability) and decides.
   */
  anonymous?: boolean;
  /** For procedures with a `{product}` input: `visible` hides unpublished products from accounts without access. */
  product?: "visible" | "entitled";
  /**
   * `product`: only a key scoped to the path's product may call (contract 7: any other key gets 403
   * `product_api_key_scope_required`), e.g. a device releasing its own product key.
   */
  keyScope?: "product";
  /** The call revokes the key it is made with (logout, releasing a device key): documented, and fuzzed with spares. */
  revokesKey?: boolean;
  role?: never;
};

/** Who may call a design route: a design agent token with a role (contract 5.12); never an account ability. */
export type DesignAccess = {
  /**
   * On the design host, the role a design agent token must hold (contract 5.12), checked like an ability: before
   * the input is read or any target looked up. Account keys and OAuth tokens are never design callers.
   */
  role: DesignRole;
  ability?: never;
  anonymous?: never;
  product?: never;
  keyScope?: never;
  revokesKey?: never;
};

/**
 * A procedure's meta: what the edge, the OpenAPI document, the security matrices, the fuzz test and the MCP read of
 * it. A route declares account access or a design role, never both: the type refuses a meta that mixes them.
 */
export type Meta = OpenApiMeta & RouteMeta & (AccountAccess | DesignAccess);

/**
 * One tRPC per host, each over its host's context: a procedure of the account host can use the account's services
 * (delivery, OAuth's settings, the account MCP, guessing limits), one of the design host the design's, and a caller
 * that does not give them all does not compile. The meta, and so the edge, the document and the matrices, are one.
 */
const account = initTRPC.context<AccountContext>().meta<Meta>().create();
const design = initTRPC.context<DesignContext>().meta<Meta>().create();

/** The account host's router builder (the app router's branches). */
export const router = account.router;
export const middleware = account.middleware;
export const createCallerFactory = account.createCallerFactory;
/** The account host's bare procedure: every account builder in `procedures/` starts from it with its caller middleware. */
export const baseProcedure = account.procedure;

/** The design host's builders: its router's branches, its bare procedure, its middleware, its callers. */
export const designRoutes = design.router;
export const designMiddleware = design.middleware;
export const designBaseProcedure = design.procedure;
export const createDesignCallerFactory = design.createCallerFactory;
