import dns from "node:dns";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import { type Database, schema } from "@shelf/db";
import { JSON_TYPE } from "@shelf/server/json-text";
import type { Logger } from "@shelf/server/log";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { type MetadataDocuments, type OAuthClient, redirectUriProblem } from "./clients";

const { oauthClients } = schema;

const BRAND = Symbol.for("shelf.oauth.ClientDocumentError");

/** Why a client ID metadata document could not be used: said to the person on the authorization page. */
export class ClientDocumentError extends Error {
  readonly [BRAND] = true;
  constructor(message: string) {
    super(message);
    this.name = "ClientDocumentError";
  }

  /**
   * Whether an error is one of these, from whichever copy of this module made it: the server makes the fetcher,
   * the pages' bundle (another copy of the module) meets its errors.
   */
  static is(error: unknown): error is ClientDocumentError {
    return typeof error === "object" && error !== null && (error as { [BRAND]?: boolean })[BRAND] === true;
  }
}

export type MetadataDocumentOptions = {
  log?: Logger;
  /** The one loopback https origin whose documents may be fetched (a local test server); none by default. */
  loopbackOrigin?: string;
  /** Extra trusted certificate authorities (PEM), besides the system's and NODE_EXTRA_CA_CERTS. */
  ca?: string;
  timeoutMs?: number;
  maxBytes?: number;
};

const MIN_FRESH_SECONDS = 60;
const DEFAULT_FRESH_SECONDS = 60 * 60;
const MAX_FRESH_SECONDS = 24 * 60 * 60;

/** Addresses a server must never be made to reach for a stranger (SSRF): loopback, private, link-local, reserved. */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(address, prefix, "ipv6");
}

/** Whether an address is one a fetch for a stranger may reach; IPv4-mapped IPv6 is judged as the IPv4 it maps. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return !blocked.check(mapped, "ipv4");
  const family = net.isIP(address);
  if (family === 0) return false;
  return !blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

const isLoopback = (address: string) => address === "::1" || /^127\./.test(address) || /^::ffff:127\./i.test(address);

/** A client_id that may name a metadata document: https, a path, nothing that URL parsing would change or hide. */
export function documentUrlProblem(clientId: string): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "https:") return "must be an https URL";
  if (url.href !== clientId) return "must be written in its normal form (as URL parsing writes it back)";
  if (url.username || url.password) return "must not carry credentials";
  if (url.hash) return "must not have a fragment";
  if (url.pathname === "/" || url.pathname === "") return "must have a path";
  if (url.pathname.split("/").some((segment) => segment === "." || segment === ".."))
    return "must not have dot segments";
  return null;
}

const ClientDocument = z.object({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: z.string().max(2000).optional(),
  redirect_uris: z.array(z.string()).min(1).max(10),
  token_endpoint_auth_method: z.literal("none").optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
  response_types: z.array(z.literal("code")).optional(),
});

/** How long a document may be used without fetching it again: its Cache-Control max-age, within bounds. */
export function freshSeconds(cacheControl: string | undefined): number {
  if (!cacheControl) return DEFAULT_FRESH_SECONDS;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return MIN_FRESH_SECONDS;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl)?.[2];
  if (maxAge === undefined) return DEFAULT_FRESH_SECONDS;
  return Math.min(MAX_FRESH_SECONDS, Math.max(MIN_FRESH_SECONDS, Number(maxAge)));
}

/**
 * Client ID metadata documents: a client whose client_id is an https URL publishes its metadata there. The fetch
 * follows no redirect, reads at most a few kilobytes within a few seconds, and connects only to public addresses,
 * checked on the addresses DNS gave for this very connection (so a name cannot switch to a private address between
 * check and use). A copy is kept in oauth_clients for as long as the document's caching headers allow, within bounds.
 */
export function createMetadataDocuments(options: MetadataDocumentOptions = {}): MetadataDocuments {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 5 * 1024;
  const loopbackOrigin = options.loopbackOrigin ? new URL(options.loopbackOrigin).origin : undefined;

  async function resolve(db: Database, clientId: string): Promise<OAuthClient | null> {
    const problem = documentUrlProblem(clientId);
    if (problem) throw new ClientDocumentError(`The client_id ${problem}.`);
    const [cached] = await db
      .select()
      .from(oauthClients)
      .where(sql`${oauthClients.id} = ${clientId} and ${oauthClients.registration} = 'metadata_document'
        and ${oauthClients.freshUntil} > now()`);
    if (cached) {
      return {
        id: cached.id,
        name: cached.name,
        redirectUris: cached.redirectUris,
        registration: "metadata_document",
        clientUri: cached.clientUri,
      };
    }
    let fetched: { body: string; cacheControl: string | undefined };
    try {
      fetched = await fetchDocument(new URL(clientId), { timeoutMs, maxBytes, loopbackOrigin, ca: options.ca });
    } catch (error) {
      options.log?.warn({ clientId, reason: (error as Error).message }, "client ID metadata document refused");
      throw ClientDocumentError.is(error) ? new ClientDocumentError(`Its metadata document: ${error.message}.`) : error;
    }
    const document = parseClientDocument(fetched.body, clientId);
    const clientUri = document.client_uri && /^https:\/\/\S+$/.test(document.client_uri) ? document.client_uri : null;
    const name = document.client_name ?? new URL(clientId).host;
    const fresh = freshSeconds(fetched.cacheControl);
    await db
      .insert(oauthClients)
      .values({
        id: clientId,
        name,
        redirectUris: document.redirect_uris,
        registration: "metadata_document",
        clientUri,
        fetchedAt: sql`now()`,
        freshUntil: sql`now() + make_interval(secs => ${fresh})`,
      })
      .onConflictDoUpdate({
        target: oauthClients.id,
        set: {
          name,
          redirectUris: document.redirect_uris,
          clientUri,
          fetchedAt: sql`now()`,
          freshUntil: sql`now() + make_interval(secs => ${fresh})`,
        },
        where: sql`${oauthClients.registration} = 'metadata_document'`,
      });
    return { id: clientId, name, redirectUris: document.redirect_uris, registration: "metadata_document", clientUri };
  }

  return { resolve };
}

/**
 * Fetches a client's metadata document: no redirect followed, at most `maxBytes` within `timeoutMs`, and only from
 * public addresses, checked on the addresses DNS gave for this very connection (the loopback origin configured for
 * tests aside).
 */
function fetchDocument(
  url: URL,
  limits: { timeoutMs: number; maxBytes: number; loopbackOrigin: string | undefined; ca: string | undefined },
): Promise<{ body: string; cacheControl: string | undefined }> {
  const { timeoutMs, maxBytes, loopbackOrigin } = limits;
  const loopbackAllowed = url.origin === loopbackOrigin;
  const allowed = (address: string) => isPublicAddress(address) || (loopbackAllowed && isLoopback(address));
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(literal) && !allowed(literal)) {
    return Promise.reject(new ClientDocumentError("its address is not a public one"));
  }
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: "GET",
        headers: { accept: "application/json", "user-agent": "Shelf (client ID metadata document fetcher)" },
        timeout: timeoutMs,
        // A connection of its own every time: a pooled socket would skip the address check below.
        agent: false,
        ca: limits.ca ? [...tls.rootCertificates, limits.ca] : undefined,
        lookup: (hostname, lookupOptions, callback) => {
          dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
            if (error) return callback(error, "", 4);
            const list = addresses as dns.LookupAddress[];
            const refused = list.find((entry) => !allowed(entry.address));
            if (refused || list.length === 0) {
              return callback(new ClientDocumentError("its host resolves to an address that is not public"), "", 4);
            }
            if ((lookupOptions as { all?: boolean }).all)
              return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
            const first = list[0] as dns.LookupAddress;
            callback(null, first.address, first.family);
          });
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          const status = response.statusCode ?? 0;
          return reject(
            new ClientDocumentError(
              status >= 300 && status < 400
                ? `it answered a redirect (${status}), which is not followed`
                : `it answered ${status}`,
            ),
          );
        }
        const type = response.headers["content-type"] ?? "";
        if (!JSON_TYPE.test(type)) {
          response.resume();
          return reject(new ClientDocumentError("it is not served as application/json"));
        }
        const declared = Number(response.headers["content-length"]);
        if (Number.isFinite(declared) && declared > maxBytes) {
          response.destroy();
          return reject(new ClientDocumentError(`it is larger than ${maxBytes} bytes`));
        }
        const chunks: Buffer[] = [];
        let length = 0;
        response.on("data", (chunk: Buffer) => {
          length += chunk.length;
          if (length > maxBytes) {
            response.destroy();
            reject(new ClientDocumentError(`it is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          resolve({ body: Buffer.concat(chunks).toString("utf8"), cacheControl: response.headers["cache-control"] }),
        );
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new ClientDocumentError(`it did not answer within ${timeoutMs} ms`)));
    request.on("error", (error) =>
      reject(
        ClientDocumentError.is(error)
          ? error
          : new ClientDocumentError(
              `it could not be fetched (${(error as NodeJS.ErrnoException).code ?? error.message})`,
            ),
      ),
    );
    request.end();
  });
}

/** A fetched document as the client's metadata: valid JSON in its schema, naming itself, with usable redirect URIs. */
function parseClientDocument(body: string, clientId: string): z.infer<typeof ClientDocument> {
  let document: z.infer<typeof ClientDocument>;
  try {
    const parsed = ClientDocument.safeParse(JSON.parse(body));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ClientDocumentError(
        `Its metadata document: ${issue?.path.join(".") || "the document"} ${issue?.message ?? "is invalid"}.`,
      );
    }
    document = parsed.data;
  } catch (error) {
    if (ClientDocumentError.is(error)) throw error;
    throw new ClientDocumentError("Its metadata document is not valid JSON.");
  }
  if (document.client_id !== clientId) {
    throw new ClientDocumentError("Its metadata document names another client_id than its own address.");
  }
  for (const uri of document.redirect_uris) {
    const uriProblem = redirectUriProblem(uri);
    if (uriProblem) throw new ClientDocumentError(`Its metadata document's redirect URI ${uri} ${uriProblem}.`);
  }
  return document;
}
