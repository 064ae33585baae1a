import { createHash, timingSafeEqual } from "node:crypto";
import { type Database, schema } from "@shelf/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import { type AccountAbility, accountAbilities } from "../abilities";
import type { BearerResolver, Credential } from "../auth/caller";
import { apiKeyResolver, type CredentialPolicy } from "../auth/credential";
import { hashSecret, randomSecret } from "../auth/key-secret";
import { recordSecurityEvent } from "../security-log";
import { sqlRows } from "../sql-text";
import { OAuthError } from "./errors";

const { oauthCodes, oauthGrants, oauthTokens } = schema;

export const ACCESS_TOKEN_SECONDS = 60 * 60;
/** A refresh token unused this long is dead; each use hands out a new one with a new 30 days. */
export const REFRESH_TOKEN_IDLE_SECONDS = 30 * 24 * 60 * 60;
export const CODE_SECONDS = 5 * 60;

const ACCESS_TOKEN = /^[a-z][a-z0-9]{1,11}_at_[A-Za-z0-9_-]{43}$/;
export const REFRESH_TOKEN = /^[a-z][a-z0-9]{1,11}_rt_[A-Za-z0-9_-]{43}$/;
export const CODE = /^[A-Za-z0-9_-]{43}$/;

/** Whether a PKCE verifier (RFC 7636: 43 to 128 unreserved characters) hashes to the S256 challenge. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

export type IssuedTokens = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
};

export type Executor = Parameters<Parameters<Database["transaction"]>[0]>[0] | Database;

export type TokenPair = { access: string; refresh: string };

/** A new pair of tokens of this brand, random. */
function randomPair(brand: string): TokenPair {
  return { access: `${brand}_at_${randomSecret()}`, refresh: `${brand}_rt_${randomSecret()}` };
}

/** A new access token and refresh token under a grant: random, unless a rotation derived them. */
export async function issueTokens(
  tx: Executor,
  grant: { grantId: number; codeId: number | null; scopes: string[]; resource: string },
  { access, refresh }: TokenPair,
): Promise<IssuedTokens> {
  await tx.insert(oauthTokens).values([
    {
      tokenHash: hashSecret(access),
      kind: "access",
      grantId: grant.grantId,
      codeId: grant.codeId,
      scopes: grant.scopes,
      resource: grant.resource,
      expiresAt: sql`now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS})`,
    },
    {
      tokenHash: hashSecret(refresh),
      kind: "refresh",
      grantId: grant.grantId,
      codeId: grant.codeId,
      scopes: grant.scopes,
      resource: grant.resource,
      expiresAt: sql`now() + make_interval(secs => ${REFRESH_TOKEN_IDLE_SECONDS})`,
    },
  ]);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refresh,
    scope: grant.scopes.join(" "),
  };
}

/** Makes the code the person's approval hands to the client. */
export async function createCode(
  db: Executor,
  input: {
    grantId: number;
    clientId: string;
    redirectUri: string;
    codeChallenge: string;
    resource: string;
    scopes: string[];
  },
): Promise<string> {
  const code = randomSecret();
  await db.insert(oauthCodes).values({
    codeHash: hashSecret(code),
    ...input,
    expiresAt: sql`now() + make_interval(secs => ${CODE_SECONDS})`,
  });
  return code;
}

/**
 * The authorization code grant: the code, once, by the client it was made for, with the same redirect URI and
 * resource, and the verifier of its challenge. A code presented again revokes every token its first exchange led
 * to (RFC 6749 section 4.1.2), since one of the two presenters is not the client.
 */
export async function exchangeCode(
  db: Database,
  brand: string,
  input: {
    code: string;
    clientId: string;
    redirectUri: string | undefined;
    verifier: string;
    resource: string | undefined;
  },
): Promise<IssuedTokens> {
  if (!CODE.test(input.code)) throw new OAuthError("invalid_grant", "The authorization code is not valid.");
  const outcome = await db.transaction(async (tx) => {
    const [row] = await sqlRows<{
      id: number;
      grant_id: number;
      client_id: string;
      redirect_uri: string;
      code_challenge: string;
      resource: string;
      scopes: string[];
      expired: boolean;
      used: boolean;
      grant_revoked: boolean;
    }>(
      tx,
      sql`select c.id, c.grant_id, c.client_id, c.redirect_uri, c.code_challenge, c.resource, c.scopes,
          c.expires_at <= now() as expired, c.used_at is not null as used, g.revoked_at is not null as grant_revoked
        from oauth_codes c join oauth_grants g on g.id = c.grant_id
        where c.code_hash = ${hashSecret(input.code)} for update of c`,
    );
    if (!row) return { error: new OAuthError("invalid_grant", "The authorization code is not valid.") };
    if (row.used) {
      await tx
        .update(oauthTokens)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(oauthTokens.codeId, row.id), isNull(oauthTokens.revokedAt)));
      return {
        error: new OAuthError("invalid_grant", "The authorization code was already used; its tokens are revoked."),
      };
    }
    await tx.update(oauthCodes).set({ usedAt: sql`now()` }).where(eq(oauthCodes.id, row.id));
    if (row.client_id !== input.clientId) {
      return { error: new OAuthError("invalid_grant", "The authorization code was issued to another client.") };
    }
    if (row.expired) return { error: new OAuthError("invalid_grant", "The authorization code has expired.") };
    if (row.grant_revoked) return { error: new OAuthError("invalid_grant", "The person disconnected this app.") };
    if (input.redirectUri !== row.redirect_uri) {
      return { error: new OAuthError("invalid_grant", "redirect_uri does not match the authorization request's.") };
    }
    if (input.resource !== undefined && input.resource !== row.resource) {
      return { error: new OAuthError("invalid_target", "resource does not match the authorization request's.") };
    }
    if (!verifierMatches(input.verifier, row.code_challenge)) {
      return { error: new OAuthError("invalid_grant", "code_verifier does not match the code_challenge.") };
    }
    const grant = { grantId: row.grant_id, codeId: row.id, scopes: row.scopes, resource: row.resource };
    const tokens = await issueTokens(tx, grant, randomPair(brand));
    return { tokens };
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.tokens;
}

/**
 * Revokes a grant (a connected app) and every token under it; a grant that was live is written to the account's
 * security log as disconnected, with why (`reason`), in the caller's transaction.
 */
export async function revokeGrant(
  tx: Executor,
  grantId: number,
  reason: "refresh_token_reused" | "client_signed_out",
): Promise<void> {
  const [live] = await sqlRows<{ account_id: number; client_name: string }>(
    tx,
    sql`update oauth_grants g set revoked_at = now() from oauth_clients c
      where g.id = ${grantId} and g.revoked_at is null and c.id = g.client_id
      returning g.account_id, c.name as client_name`,
  );
  if (live) {
    await recordSecurityEvent(tx, {
      accountId: live.account_id,
      kind: "app_disconnected",
      detail: { grant: grantId, client: live.client_name, reason },
    });
  }
  await tx
    .update(oauthTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)));
}

/**
 * RFC 7009 revocation by the client that holds the token: an access token ends alone; a refresh token ends the
 * grant (the client signing out). An unknown token, or another client's, changes nothing and is not an error.
 */
export async function revokeToken(db: Database, input: { token: string; clientId: string }): Promise<void> {
  if (!ACCESS_TOKEN.test(input.token) && !REFRESH_TOKEN.test(input.token)) return;
  await db.transaction(async (tx) => {
    const [row] = await sqlRows<{ id: number; kind: string; grant_id: number }>(
      tx,
      sql`select t.id, t.kind, t.grant_id from oauth_tokens t join oauth_grants g on g.id = t.grant_id
        where t.token_hash = ${hashSecret(input.token)} and g.client_id = ${input.clientId}`,
    );
    if (!row) return;
    if (row.kind === "refresh") await revokeGrant(tx, row.grant_id, "client_signed_out");
    else await tx.update(oauthTokens).set({ revokedAt: sql`now()` }).where(eq(oauthTokens.id, row.id));
  });
}

/** Space-separated scopes, each once. */
export function parseScope(scope: string): string[] {
  return [...new Set(scope.split(" ").filter(Boolean))];
}

/**
 * The scopes of a request that are abilities, each once. Hosts send names of their own (`claudeai`, `read write`,
 * `openid profile email`, `offline_access`): RFC 6749 3.3 lets the server ignore what it does not know.
 */
export function knownScopes(scope: string): string[] {
  return parseScope(scope).filter((name) => (accountAbilities as readonly string[]).includes(name));
}

/**
 * Access tokens as bearer credentials: live (unexpired, unrevoked, under a live grant), for an account whose
 * abilities are the granted scopes. A token's first use is written once (its host has moved on to its pair, which
 * ends the grace of the refresh token that pair replaced); the grant's last use at most once a minute (connected
 * apps page).
 */
export const accessTokenResolver: BearerResolver = {
  matches: (token) => ACCESS_TOKEN.test(token),
  async resolve(db, token): Promise<Credential> {
    const [row] = await sqlRows<{
      id: number;
      grant_id: number;
      account_id: number;
      client_id: string;
      scopes: string[];
      resource: string;
      first_use: boolean;
      stale: boolean;
    }>(
      db,
      sql`select t.id, t.grant_id, g.account_id, g.client_id, t.scopes, t.resource, t.used_at is null as first_use,
          (g.last_used_at is null or g.last_used_at < now() - interval '1 minute') as stale
        from oauth_tokens t join oauth_grants g on g.id = t.grant_id
        where t.token_hash = ${hashSecret(token)} and t.kind = 'access' and t.revoked_at is null
          and t.expires_at > now() and g.revoked_at is null`,
    );
    if (!row) return { status: "invalid" };
    if (row.first_use) {
      await db
        .update(oauthTokens)
        .set({ usedAt: sql`now()` })
        .where(and(eq(oauthTokens.id, row.id), isNull(oauthTokens.usedAt)));
    }
    if (row.stale) {
      await db
        .update(oauthGrants)
        .set({ lastUsedAt: sql`now()` })
        .where(and(eq(oauthGrants.id, row.grant_id), isNull(oauthGrants.revokedAt)));
    }
    const abilities = row.scopes.filter((scope): scope is AccountAbility =>
      (accountAbilities as readonly string[]).includes(scope),
    );
    return {
      status: "valid",
      caller: {
        type: "oauth_token",
        tokenId: row.id,
        clientId: row.client_id,
        accountId: row.account_id,
        abilities: new Set(abilities),
        productId: null,
        resource: row.resource,
      },
    };
  },
};

/** The account MCP (contract 5.2): account API keys, and the access tokens of sign-in, which work nowhere else. */
export const accountMcpPolicy: CredentialPolicy = {
  resolvers: [apiKeyResolver, accessTokenResolver],
  accepts: new Set(["api_key", "oauth_token"]),
};
