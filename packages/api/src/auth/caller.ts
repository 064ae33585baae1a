import type { Database } from "@shelf/db";
import type { DesignRole } from "@shelf/db/enums";
import type { Ability } from "../abilities";

type CallerBase = {
  accountId: number;
  /** What this caller may do: a key's abilities, a token's granted scopes, or everything for the account holder. */
  abilities: ReadonlySet<Ability>;
  /** Set for a product-scoped key: it may touch only this product. */
  productId: number | null;
};

/** An account API key (contract 5.5): the whole account API and the account MCP. */
export type ApiKeyCaller = CallerBase & {
  type: "api_key";
  keyId: number;
  keyKind: "created" | "device";
};

/** An OAuth access token from sign-in (contract 5.2): only the account MCP accepts it. */
export type OAuthTokenCaller = CallerBase & {
  type: "oauth_token";
  tokenId: number;
  clientId: string;
  /** The resource the token was issued for (RFC 8707): it works only there. */
  resource: string;
};

/** A person signed in to the account pages; never accepted by the REST API, which reads no cookies. */
export type SessionCaller = CallerBase & {
  type: "session";
  /** The session's row (web_sessions.id), never its secret: a password change keeps this one and ends the others. */
  sessionId: number;
};

/**
 * Who is calling, resolved once per request. Every procedure decides by abilities; which kinds an entry point
 * accepts at all is the entry point's decision (the REST edge takes only API keys, contract 5.3).
 */
export type Caller = ApiKeyCaller | OAuthTokenCaller | SessionCaller;

/** An agent on the design host, by its design token (contract 5.12): roles, not an account's abilities. */
export type DesignCaller = {
  type: "design_token";
  tokenId: number;
  /** The token's name, as its operator gave it: what documents name as a version's author or reviewer. */
  name: string;
  roles: ReadonlySet<DesignRole>;
};

/** Any caller of any entry point: an account's (above), or an agent on the design host (never the account API's). */
export type AnyCaller = Caller | DesignCaller;
export type CallerType = AnyCaller["type"];

/** What the request presented, before any endpoint decides whether it needed it. */
export type Credential = { status: "none" } | { status: "invalid" } | { status: "valid"; caller: AnyCaller };

/** One kind of bearer credential (an API key, an OAuth access token, a design token), as entry points resolve it. */
export type BearerResolver = {
  /** Whether the token has this credential's shape; decided without I/O. */
  matches: (token: string) => boolean;
  /** `clientAddress`: where the request came from, kept as a key's last use address. */
  resolve: (db: Database, token: string, clientAddress?: string) => Promise<Credential>;
};

/** A stable name for the caller's credential: what rate limits and logs count by. */
export function credentialKey(caller: AnyCaller): string {
  switch (caller.type) {
    case "design_token":
      return `design:${caller.tokenId}`;
    case "api_key":
      return `key:${caller.keyId}`;
    case "oauth_token":
      return `token:${caller.tokenId}`;
    case "session":
      return `account:${caller.accountId}`;
  }
}

/**
 * The token of an `Authorization: Bearer <token>` header: undefined when there is no header, null when the header
 * is not a bearer credential. A key anywhere else (query string, cookie) is never read.
 */
export function bearerToken(authorization: string | null | undefined): string | null | undefined {
  if (authorization == null || authorization.trim() === "") return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}
