import type { Ability } from "../abilities";
import type { DesignCaller } from "./design-token";

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

/** Any caller of any entry point: an account's (above), or an agent on the design host (never the account API's). */
export type AnyCaller = Caller | DesignCaller;
export type CallerType = AnyCaller["type"];

/** What the request presented, before any endpoint decides whether it needed it. */
export type Credential = { status: "none" } | { status: "invalid" } | { status: "valid"; caller: AnyCaller };

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
