import { randomBytes } from "node:crypto";
import { type Database, schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { accountAbilities } from "../abilities";
import { OAuthError } from "./errors";

const { oauthClients } = schema;

export type OAuthClient = {
  id: string;
  name: string;
  redirectUris: string[];
  registration: "dynamic" | "metadata_document";
  clientUri: string | null;
};

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * A redirect URI a public client may register: absolute, https (any host) or http on a loopback host (native apps,
 * RFC 8252), without credentials or a fragment. Returns why not, or null.
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
  return "must be https, or http on a loopback address (127.0.0.1, [::1], localhost)";
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

/** Whether every redirect URI of a client is on the person's own machine (the consent screen warns about those). */
export function isLoopbackOnly(client: OAuthClient): boolean {
  return client.redirectUris.every((uri) => {
    try {
      return LOOPBACK_HOSTS.has(new URL(uri).hostname);
    } catch {
      return false;
    }
  });
}

const RegistrationInput = z.object({
  redirect_uris: z.array(z.string()).min(1).max(10),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: z.string().max(2000).optional(),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  scope: z.string().max(1000).optional(),
});

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
 * Dynamic client registration (RFC 7591) for public clients: no secret is issued (`token_endpoint_auth_method`
 * `none`, PKCE instead), only the authorization code and refresh token grants, checked redirect URIs.
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
  if (method !== "none") {
    throw new OAuthError(
      "invalid_client_metadata",
      "token_endpoint_auth_method: only public clients (none) are registered; PKCE protects the code.",
    );
  }
  const grantTypes = input.grant_types ?? ["authorization_code", "refresh_token"];
  const unknownGrant = grantTypes.find((grant) => grant !== "authorization_code" && grant !== "refresh_token");
  if (unknownGrant || !grantTypes.includes("authorization_code")) {
    throw new OAuthError(
      "invalid_client_metadata",
      `grant_types: only authorization_code (required) and refresh_token are supported${unknownGrant ? `, not ${unknownGrant}` : ""}.`,
    );
  }
  const responseTypes = input.response_types ?? ["code"];
  if (responseTypes.some((type) => type !== "code")) {
    throw new OAuthError("invalid_client_metadata", "response_types: only code is supported.");
  }
  if (input.client_uri !== undefined && !/^https:\/\/[^\s]+$/.test(input.client_uri)) {
    throw new OAuthError("invalid_client_metadata", "client_uri: must be an https URL.");
  }
  if (input.scope !== undefined) {
    const unknown = input.scope
      .split(" ")
      .filter((scope) => scope && !(accountAbilities as readonly string[]).includes(scope));
    if (unknown.length > 0)
      throw new OAuthError("invalid_client_metadata", `scope: unknown scopes ${unknown.join(", ")}.`);
  }
  const clientId = `shelfc_${randomBytes(18).toString("base64url")}`;
  const name = input.client_name ?? new URL(input.redirect_uris[0] as string).host;
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
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: "none",
    ...(input.client_uri ? { client_uri: input.client_uri } : {}),
    ...(input.scope ? { scope: input.scope } : {}),
  };
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
