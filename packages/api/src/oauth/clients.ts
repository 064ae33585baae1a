import { randomBytes } from "node:crypto";
import { type Database, schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { OAuthError } from "./errors";
import { knownScopes } from "./tokens";

const { oauthClients } = schema;

export type OAuthClient = {
  id: string;
  name: string;
  redirectUris: string[];
  registration: "dynamic" | "metadata_document";
  clientUri: string | null;
};

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Schemes that run, read or name something in the browser or the machine itself: never a place to send a code. */
const REFUSED_SCHEMES = new Set([
  "javascript:",
  "vbscript:",
  "data:",
  "file:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "chrome:",
  "ws:",
  "wss:",
  "ftp:",
  "mailto:",
  "tel:",
  "sms:",
]);

/**
 * A private-use URI scheme of a native app (RFC 8252 7.1): `com.example.app:/callback`, or an app's own scheme with a
 * reverse-domain name after it, as desktop editors register (`cursor://anysphere.cursor-mcp/oauth/callback`,
 * `vscode://vscode.github-authentication/did-authenticate`). A scheme without a dot and without such a name
 * (`myapp:/cb`) is too easily claimed by another app, and is refused.
 */
export function isPrivateUseRedirect(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol === "https:" || url.protocol === "http:" || REFUSED_SCHEMES.has(url.protocol)) return false;
  if (url.protocol.slice(0, -1).includes(".")) return true;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(url.hostname);
}

/**
 * A redirect URI a public client may register: absolute, https (any host), http on a loopback host, or a native app's
 * private-use scheme (RFC 8252 7.1 and 7.3), without credentials or a fragment. Returns why not, or null.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (uri.length > 2000) return "is longer than 2000 characters";
  if (url.hash || uri.includes("#")) return "must not have a fragment";
  if (url.username || url.password) return "must not carry credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  if (isPrivateUseRedirect(uri)) return null;
  return "must be https, http on a loopback address (127.0.0.1, [::1], localhost), or a native app's private-use scheme (reverse-domain, e.g. com.example.app:/callback)";
}

/**
 * The registered redirect URI a request's `redirect_uri` names, or null. Exact string comparison, except that an
 * http redirect on a loopback host may name any port (RFC 8252 7.3, OAuth 2.1 8.4.2): a native app listens on
 * whatever port the system gives it at the time. Host, path and query still match exactly; the token request must
 * then repeat the URI as the authorization request gave it.
 */
export function registeredRedirect(client: OAuthClient, given: string): string | null {
  if (client.redirectUris.includes(given)) return given;
  const port = loopbackPort(given);
  if (port === null) return null;
  const match = client.redirectUris.some((uri) => {
    if (loopbackPort(uri) === null) return false;
    const registered = new URL(uri);
    registered.port = port;
    return registered.href === given;
  });
  return match ? given : null;
}

/** The port of an http loopback redirect URI ("" for the default), or null for any other URI. */
function loopbackPort(uri: string): string | null {
  if (redirectUriProblem(uri) !== null) return null;
  const url = new URL(uri);
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname) ? url.port : null;
}

/**
 * Whether every redirect URI of a client leads back into the person's own machine: a loopback address or a native
 * app's private-use scheme (the consent screen shows such a client as an app on this computer).
 */
export function isNativeApp(client: OAuthClient): boolean {
  return client.redirectUris.every((uri) => {
    try {
      const url = new URL(uri);
      return LOOPBACK_HOSTS.has(url.hostname) || isPrivateUseRedirect(uri);
    } catch {
      return false;
    }
  });
}

const RegistrationInput = z.object({
  redirect_uris: z.array(z.string()).min(1).max(10),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: z.string().max(2000).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  grant_types: z.array(z.string().max(200)).max(20).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  scope: z.string().max(1000).optional(),
});

/**
 * Ways a client may ask to authenticate at the token endpoint. Every one of them is answered with `none` (RFC 7591
 * 3.2.1 lets the server replace what was asked, and the answer says what was granted): this server issues no secrets,
 * PKCE protects the code. Hosted connectors ask for `client_secret_post` and use what they are given.
 */
const AUTH_METHODS = new Set([
  "none",
  "client_secret_post",
  "client_secret_basic",
  "client_secret_jwt",
  "private_key_jwt",
  "tls_client_auth",
  "self_signed_tls_client_auth",
]);

const SUPPORTED_GRANTS = ["authorization_code", "refresh_token"] as const;

export type RegisteredClient = {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
  client_uri?: string;
  scope?: string;
};

/**
 * Dynamic client registration (RFC 7591) for public clients, as real MCP hosts send it: whatever authentication
 * method is asked for, the client is registered public (`token_endpoint_auth_method` `none`, PKCE instead); grant
 * types this server does not have (a device code grant, say) are dropped, and the authorization code grant always
 * given; scopes it does not know (`offline_access`, a host's own names) are dropped. The answer says what was granted.
 * Redirect URIs are checked (https, loopback http, a native app's private-use scheme); response types other than
 * `code` are refused, since a client that needs them could not work here.
 */
export async function registerClient(db: Database, body: unknown): Promise<RegisteredClient> {
  const parsed = RegistrationInput.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    const code = field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata";
    throw new OAuthError(code, `${field}: ${issue?.message ?? "is invalid"}`);
  }
  const input = parsed.data;
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", `redirect_uris: ${uri} ${problem}.`);
  }
  const method = input.token_endpoint_auth_method ?? "none";
  if (!AUTH_METHODS.has(method)) {
    throw new OAuthError(
      "invalid_client_metadata",
      `token_endpoint_auth_method: ${method} is not a client authentication method (RFC 7591 2); clients are registered public (none).`,
    );
  }
  const grantTypes = SUPPORTED_GRANTS.filter(
    (grant) => grant === "authorization_code" || (input.grant_types ?? SUPPORTED_GRANTS).includes(grant),
  );
  const responseTypes = input.response_types ?? ["code"];
  if (responseTypes.some((type) => type !== "code")) {
    throw new OAuthError("invalid_client_metadata", "response_types: only code is supported.");
  }
  if (input.client_uri !== undefined && !/^https:\/\/[^\s]+$/.test(input.client_uri)) {
    throw new OAuthError("invalid_client_metadata", "client_uri: must be an https URL.");
  }
  const scope = input.scope === undefined ? undefined : knownScopes(input.scope).join(" ");
  const clientId = `shelfc_${randomBytes(18).toString("base64url")}`;
  const name = input.client_name ?? nameOfRedirect(input.redirect_uris[0] as string);
  const [row] = await db
    .insert(oauthClients)
    .values({
      id: clientId,
      name,
      redirectUris: input.redirect_uris,
      registration: "dynamic",
      clientUri: input.client_uri ?? null,
    })
    .returning({ createdAt: oauthClients.createdAt });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor((row?.createdAt ?? new Date()).getTime() / 1000),
    client_name: name,
    redirect_uris: input.redirect_uris,
    grant_types: [...grantTypes],
    response_types: responseTypes,
    token_endpoint_auth_method: "none",
    ...(input.client_uri ? { client_uri: input.client_uri } : {}),
    ...(scope ? { scope } : {}),
  };
}

/** A name for a client that gave none: its redirect URI's host, or its private-use scheme. */
function nameOfRedirect(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol.slice(0, -1);
}

/** Fetches (and caches) a client ID metadata document; set by the server when documents are accepted. */
export type MetadataDocuments = { resolve: (db: Database, clientId: string) => Promise<OAuthClient | null> };

/**
 * The client a `client_id` names: a registered one, or, for an https URL, its metadata document (fetched under
 * the SSRF rules of `metadata-documents.ts`). Null when there is none.
 */
/**
 * At the token and revocation endpoints a public client authenticates by naming itself: a client_id that no
 * registration and no metadata document ever gave is `invalid_client` (RFC 6749 5.2), before any code or token is
 * looked at.
 */
export async function assertKnownClient(db: Database, clientId: string): Promise<void> {
  const known =
    clientId.length <= 2000 &&
    (await db.select({ id: oauthClients.id }).from(oauthClients).where(eq(oauthClients.id, clientId))).length > 0;
  if (!known) throw new OAuthError("invalid_client", "The client_id is not one this server registered or knows.");
}

export async function findClient(
  db: Database,
  clientId: string,
  documents?: MetadataDocuments,
): Promise<OAuthClient | null> {
  if (clientId.length > 2000) return null;
  if (clientId.startsWith("https://")) return documents ? documents.resolve(db, clientId) : null;
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId));
  if (row?.registration !== "dynamic") return null;
  return {
    id: row.id,
    name: row.name,
    redirectUris: row.redirectUris,
    registration: row.registration,
    clientUri: row.clientUri,
  };
}
