import { createHmac, hkdfSync } from "node:crypto";
import { type Database, schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { hashSecret, randomSecret } from "../auth/key-secret";
import { sqlRows } from "../sql-text";
import { OAuthError } from "./errors";
import type { OAuthSettings } from "./settings";
import {
  type Executor,
  type IssuedTokens,
  issueTokens,
  parseScope,
  REFRESH_TOKEN,
  revokeGrant,
  type TokenPair,
} from "./tokens";

const { oauthTokens } = schema;

/**
 * How long after its rotation a refresh token presented again is answered with the pair its rotation gave. MCP hosts
 * refresh from parallel requests (two tool calls in flight when the access token expires each start a refresh with
 * the same token): each gets the same successor, so a grant never forks into chains that refresh on independently.
 * Reuse later than this, or once the host has used the successor or its access token, revokes the grant (RFC 9700
 * 4.14.2: reuse must be seen).
 */
export const REFRESH_REUSE_GRACE_SECONDS = 30;

/**
 * How long after the host's first call with the successor's access token one of its parallel refreshes may still
 * arrive: the TypeScript SDK runs discovery again before each refresh, so one call's refresh can trail the other
 * call's retry with the new token (seen about once a day of hourly refreshes). The access token's use ends the grace
 * this much later.
 */
export const PARALLEL_REFRESH_LAG_SECONDS = 5;

type RefreshRequest = {
  refreshToken: string;
  clientId: string;
  scope: string | undefined;
  resource: string | undefined;
};

/** The presented refresh token as the transaction that holds its row reads it. */
type Presented = {
  id: number;
  grant_id: number;
  code_id: number | null;
  client_id: string;
  scopes: string[];
  resource: string;
  expired: boolean;
  used: boolean;
  /** Used within the grace. */
  recent: boolean;
  successor_seed: string | null;
  revoked: boolean;
};

type Outcome = { error: OAuthError } | { tokens: IssuedTokens };

/** What a rotation derives successors with: the tokens' brand, and the secret no copy of the database holds. */
type Deriving = Pick<OAuthSettings, "brand" | "secret">;

const NOT_VALID = "The refresh token is not valid.";

/**
 * The refresh token grant, with rotation: a refresh token is exchanged once for a new pair (its successor); presented
 * again, see `REFRESH_REUSE_GRACE_SECONDS`.
 */
export async function refreshTokens(db: Database, deriving: Deriving, input: RefreshRequest): Promise<IssuedTokens> {
  if (!REFRESH_TOKEN.test(input.refreshToken)) throw new OAuthError("invalid_grant", NOT_VALID);
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    // Parallel refreshes with one token queue on its row here; each then reads it in a statement of its own, which
    // sees what the one before it committed (READ COMMITTED), and so answers the successor that one issued.
    const [locked] = await sqlRows<{ id: number }>(
      tx,
      sql`select id from oauth_tokens where token_hash = ${hashSecret(input.refreshToken)} and kind = 'refresh'
        for update`,
    );
    const row = locked ? await presented(tx, locked.id) : undefined;
    if (!row || row.client_id !== input.clientId) return { error: new OAuthError("invalid_grant", NOT_VALID) };
    return row.used ? answerReuse(tx, deriving, row, input) : rotate(tx, deriving, row, input);
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.tokens;
}

/**
 * The windows are judged by the clock (`clock_timestamp()`), not by the transaction's start (`now()`): a request that
 * queued on the row lock began before it was served, and would have its grace widened by the wait.
 */
async function presented(tx: Executor, id: number): Promise<Presented | undefined> {
  const [row] = await sqlRows<Presented>(
    tx,
    sql`select t.id, t.grant_id, t.code_id, g.client_id, t.scopes, t.resource,
        t.expires_at <= clock_timestamp() as expired, t.used_at is not null as used,
        coalesce(t.used_at > clock_timestamp() - make_interval(secs => ${REFRESH_REUSE_GRACE_SECONDS}), false)
          as recent,
        t.successor_seed, (t.revoked_at is not null or g.revoked_at is not null) as revoked
      from oauth_tokens t join oauth_grants g on g.id = t.grant_id where t.id = ${id}`,
  );
  return row;
}

/** The first use: the token is spent, and its successor pair issued from a new seed. */
async function rotate(tx: Executor, deriving: Deriving, row: Presented, input: RefreshRequest): Promise<Outcome> {
  if (row.revoked) return { error: new OAuthError("invalid_grant", "The refresh token was revoked.") };
  if (row.expired) return { error: new OAuthError("invalid_grant", "The refresh token has expired: sign in again.") };
  const scopes = grantedScopes(row, input);
  if (scopes instanceof OAuthError) return { error: scopes };
  const seed = randomSecret();
  await tx.update(oauthTokens).set({ usedAt: sql`now()`, successorSeed: seed }).where(eq(oauthTokens.id, row.id));
  const grant = { grantId: row.grant_id, codeId: row.code_id, scopes, resource: row.resource };
  return { tokens: await issueTokens(tx, grant, successorPair(deriving, seed, input.refreshToken)) };
}

/**
 * A spent refresh token presented again. Within the grace, while the host has used neither token of the successor
 * pair (the access token: see `PARALLEL_REFRESH_LAG_SECONDS`), it is one of the host's parallel refreshes: it gets
 * that same pair (its access token's remaining time as `expires_in`). Any other reuse is a copy in other hands: the
 * grant and every token under it are revoked. The pair's rows are read under a share lock: a rotation of the
 * successor still in progress is waited for, and its use seen.
 */
async function answerReuse(tx: Executor, deriving: Deriving, row: Presented, input: RefreshRequest): Promise<Outcome> {
  // Past the grace the answer is revocation whatever became of the successor: its rows are neither read nor locked.
  const successor =
    row.successor_seed === null || !row.recent ? null : successorPair(deriving, row.successor_seed, input.refreshToken);
  const issued = successor
    ? await sqlRows<{ kind: string; used: boolean; revoked: boolean; scopes: string[]; expires_in: number }>(
        tx,
        sql`select kind, revoked_at is not null as revoked, scopes,
            greatest(0, floor(extract(epoch from expires_at - clock_timestamp())))::int as expires_in,
            case kind when 'refresh' then used_at is not null
              else coalesce(used_at <= clock_timestamp() - make_interval(secs => ${PARALLEL_REFRESH_LAG_SECONDS}), false)
            end as used
          from oauth_tokens where grant_id = ${row.grant_id}
            and token_hash in (${hashSecret(successor.access)}, ${hashSecret(successor.refresh)})
          for share`,
      )
    : [];
  const access = issued.find((token) => token.kind === "access");
  if (!successor || !access || !row.recent || issued.length !== 2 || issued.some((token) => token.used)) {
    await revokeGrant(tx, row.grant_id, "refresh_token_reused");
    return {
      error: new OAuthError("invalid_grant", "The refresh token was already used: the app is disconnected for safety."),
    };
  }
  if (row.revoked || issued.some((token) => token.revoked)) {
    return { error: new OAuthError("invalid_grant", "The refresh token was revoked.") };
  }
  const scopes = grantedScopes(row, input);
  if (scopes instanceof OAuthError) return { error: scopes };
  return {
    tokens: {
      access_token: successor.access,
      token_type: "Bearer",
      expires_in: access.expires_in,
      refresh_token: successor.refresh,
      scope: access.scopes.join(" "),
    },
  };
}

/** HKDF's `info` for the successor keys: what this use of the deployment's secret is, apart from its others. */
const SUCCESSOR_KEY_INFO = "shelf oauth refresh successor";

/**
 * The successor pair of a refresh token: an HMAC of the refresh token (kept only by its holder) under a key drawn
 * from the deployment's secret (kept by no database) and the rotation's seed (kept on the spent row for the grace).
 * So a copy of the database with any old token yields nothing: the successor takes the secret, which every instance
 * shares, and so derives alike.
 */
function successorPair({ brand, secret }: Deriving, seed: string, refreshToken: string): TokenPair {
  const key = Buffer.from(hkdfSync("sha256", secret, seed, SUCCESSOR_KEY_INFO, 32));
  const derive = (kind: string) => createHmac("sha256", key).update(`${kind}:${refreshToken}`).digest("base64url");
  return { access: `${brand}_at_${derive("access")}`, refresh: `${brand}_rt_${derive("refresh")}` };
}

/** What a refresh may ask: fewer scopes than the token holds, never more (RFC 6749 6), and only its resource. */
function grantedScopes(row: Presented, input: RefreshRequest): string[] | OAuthError {
  let scopes = row.scopes;
  if (input.scope !== undefined) {
    const asked = parseScope(input.scope);
    if (asked.some((scope) => !row.scopes.includes(scope))) {
      return new OAuthError("invalid_scope", "A refresh may narrow the scopes, never widen them.");
    }
    scopes = asked;
  }
  if (input.resource !== undefined && input.resource !== row.resource) {
    return new OAuthError("invalid_target", "resource does not match the grant's.");
  }
  return scopes;
}
