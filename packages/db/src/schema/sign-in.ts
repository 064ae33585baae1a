import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { DeviceSignInStatus, OAuthClientRegistration } from "../enums";
import { accounts, belongsToAccount } from "./accounts";
import { identityId, sha256Lookup, timestampNow } from "./columns";
import { apiKeys } from "./keys";

/**
 * A person's browser session on the account pages. The session cookie (a JWT sealed with the auth secret) carries
 * a random id; only its SHA-256 is stored, and a session is live while this row is neither revoked nor expired, so
 * signing out or changing the password ends sessions on every instance at once.
 */
export const webSessions = pgTable(
  "web_sessions",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    /** SHA-256 of the session id, lowercase hex. */
    tokenHash: text().notNull(),
    createdAt: timestampNow(),
    /** Written at most every few minutes while the session is used. */
    lastSeenAt: timestampNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [...sha256Lookup("web_sessions_token_hash", t.tokenHash), index().on(t.accountId)],
);

/**
 * A device sign-in in the shape of RFC 8628: a client (the command-line client, the desktop apps) holds the device
 * code and polls; the person enters the user code on a page and approves or denies; the first poll after approval
 * receives a new device key, once. Both codes are stored as SHA-256 hashes only.
 */
export const deviceSignIns = pgTable(
  "device_sign_ins",
  {
    id: identityId(),
    deviceCodeHash: text().notNull(),
    userCodeHash: text().notNull(),
    /** The registered client asking (`shelf-cli`, `shelf-desktop`): names it on the page, and owns the key. */
    client: text().notNull(),
    /** What the device calls itself: shown to the person as the device's own words. */
    deviceName: text(),
    status: text().$type<DeviceSignInStatus>().notNull().default("pending"),
    /** The account that approved or denied. */
    accountId: integer().references(() => accounts.id, { onDelete: "cascade" }),
    /**
     * Why an approval failed on the page (an error code: `api_key_limit_reached`), which ended the sign-in as denied:
     * the polling device hears the reason at once instead of waiting out the code. Null when the person decided.
     */
    failure: text(),
    /** The key the device received. */
    apiKeyId: integer().references(() => apiKeys.id, { onDelete: "set null" }),
    /** The polling interval the client must keep; each `slow_down` adds 5 seconds (RFC 8628 3.5). */
    intervalSeconds: integer().notNull().default(5),
    createdAt: timestampNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    lastPolledAt: timestamp({ withTimezone: true }),
    decidedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("device_sign_ins_device_code_key").on(t.deviceCodeHash),
    uniqueIndex("device_sign_ins_user_code_key").on(t.userCodeHash),
    index().on(t.expiresAt),
    check("device_sign_ins_status", sql`${t.status} IN ('pending', 'approved', 'denied', 'issued')`),
    check("device_sign_ins_decided", sql`(${t.status} = 'pending') = (${t.accountId} IS NULL)`),
    check("device_sign_ins_interval", sql`${t.intervalSeconds} BETWEEN 1 AND 600`),
    check("device_sign_ins_failure", sql`${t.failure} IS NULL OR ${t.status} = 'denied'`),
  ],
);

/** An OAuth client known to the authorization server: registered dynamically or by its client ID metadata document. */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    /** The client_id: generated for a dynamic registration, the document's URL for a metadata document. */
    id: text().primaryKey(),
    name: text().notNull(),
    redirectUris: text().array().notNull(),
    registration: text().$type<OAuthClientRegistration>().notNull(),
    /** The client's home page, as it says (shown on the consent screen). */
    clientUri: text(),
    createdAt: timestampNow(),
    /** A metadata document: when it was last fetched, and until when that copy may be used without fetching again. */
    fetchedAt: timestamp({ withTimezone: true }),
    freshUntil: timestamp({ withTimezone: true }),
  },
  (t) => [check("oauth_clients_registration", sql`${t.registration} IN ('dynamic', 'metadata_document')`)],
);

/**
 * What an account allowed an OAuth client (a connected app): the scopes approved on the consent screen. Its tokens
 * live while the grant does; disconnecting revokes the grant and, with it, every token issued under it.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    clientId: text()
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    scopes: text().array().notNull(),
    /** The redirect URI the person approved; its host is what the connected-apps list shows. */
    redirectUri: text().notNull(),
    createdAt: timestampNow(),
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("oauth_grants_live_key").on(t.accountId, t.clientId).where(sql`${t.revokedAt} IS NULL`),
    index().on(t.clientId),
  ],
);

/**
 * An authorization code: made when the person approves, exchanged once for tokens within minutes. Only its SHA-256
 * is stored, with what the token request must match (client, redirect URI, PKCE challenge, resource).
 */
export const oauthCodes = pgTable(
  "oauth_codes",
  {
    id: identityId(),
    codeHash: text().notNull(),
    grantId: integer()
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    clientId: text().notNull(),
    redirectUri: text().notNull(),
    /** The S256 challenge: base64url of the SHA-256 of the verifier. */
    codeChallenge: text().notNull(),
    resource: text().notNull(),
    scopes: text().array().notNull(),
    createdAt: timestampNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    /** Set by the one exchange; a second exchange finds it set and revokes what the first issued. */
    usedAt: timestamp({ withTimezone: true }),
  },
  (t) => [...sha256Lookup("oauth_codes_code_hash", t.codeHash), index().on(t.grantId)],
);

/**
 * Access tokens (an hour) and refresh tokens (rotated at each use, ending after 30 days without use), stored as
 * SHA-256 hashes. Every token belongs to a grant: revoking the grant (disconnecting the app, or a refresh token used
 * twice) ends them all at once.
 */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: identityId(),
    tokenHash: text().notNull(),
    kind: text().$type<"access" | "refresh">().notNull(),
    grantId: integer()
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    /** The code whose exchange issued this token (directly or through refreshes): a replayed code revokes them. */
    codeId: integer().references(() => oauthCodes.id, { onDelete: "set null" }),
    scopes: text().array().notNull(),
    resource: text().notNull(),
    createdAt: timestampNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    /**
     * A refresh token's first use: it was exchanged for new tokens then (a reuse in the grace keeps this time). An
     * access token's first use as a credential: its host has moved on to the pair it belongs to.
     */
    usedAt: timestamp({ withTimezone: true }),
    /**
     * A used refresh token's successor pair is derived from this random value, the refresh token itself (which only
     * its holder has) and the deployment's secret (which no database has): a reuse within the grace derives, and
     * answers, the same pair again. Housekeeping clears it once the grace is over.
     */
    successorSeed: text(),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    ...sha256Lookup("oauth_tokens_token_hash", t.tokenHash),
    index().on(t.grantId),
    index().on(t.codeId),
    check("oauth_tokens_kind", sql`${t.kind} IN ('access', 'refresh')`),
  ],
);
