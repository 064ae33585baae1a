import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCertificate, TEST_OAUTH_SETTINGS, tlsServer } from "../testing";
import { checkAuthorizationRequest } from "./authorize";
import {
  ClientDocumentError,
  createMetadataDocuments,
  documentUrlProblem,
  freshSeconds,
  isPublicAddress,
} from "./metadata-documents";
import type { OAuthSettings } from "./settings";

/**
 * Client ID metadata documents against a local TLS server: a good document is used and cached by its headers; a
 * document that lies about its client_id, redirects, is too large, too slow or not JSON is refused; and no fetch
 * reaches a loopback or private address unless it is the one origin a test allows.
 */

let testDb: TestDatabase;
let site: Awaited<ReturnType<typeof tlsServer>>;
let cert: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const certificate = await selfSignedCertificate();
  cert = certificate.cert;
  site = await tlsServer(certificate);
});
afterAll(async () => {
  await site?.close();
  await testDb?.drop();
});

const REDIRECT = "http://127.0.0.1:47000/callback";

function documentAt(pathname: string, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const clientId = `${site.origin}${pathname}`;
  site.answer(pathname, {
    headers,
    body: JSON.stringify({ client_id: clientId, client_name: "Doc Client", redirect_uris: [REDIRECT], ...overrides }),
  });
  return clientId;
}

function documents(options: { allowLoopback?: boolean; timeoutMs?: number } = {}) {
  return createMetadataDocuments({
    loopbackOrigin: options.allowLoopback === false ? undefined : site.origin,
    ca: cert,
    timeoutMs: options.timeoutMs,
  });
}

async function resolveError(clientId: string, fetcher = documents()): Promise<string> {
  try {
    await fetcher.resolve(testDb.db, clientId);
  } catch (error) {
    expect(error).toBeInstanceOf(ClientDocumentError);
    return (error as Error).message;
  }
  throw new Error(`${clientId} was accepted`);
}

describe("client ID metadata documents", () => {
  it("uses a good document for authorization, and keeps it as long as its max-age says", async () => {
    const clientId = documentAt("/clients/good.json", {}, { "cache-control": "max-age=600" });
    const settings: OAuthSettings = { ...TEST_OAUTH_SETTINGS, documents: documents() };
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: "a".repeat(43),
      code_challenge_method: "S256",
      resource: settings.resource,
    });
    const outcome = await checkAuthorizationRequest(testDb.db, settings, query);
    expect(outcome.kind).toBe("consent");
    expect(outcome.kind === "consent" && outcome.request.client).toMatchObject({
      id: clientId,
      name: "Doc Client",
      registration: "metadata_document",
    });
    await checkAuthorizationRequest(testDb.db, settings, query);
    expect(site.hits("/clients/good.json")).toBe(1);
  });

  it("refuses a document that names another client_id, redirects, or is too large, slow or not JSON", async () => {
    expect(
      await resolveError(documentAt("/clients/liar.json", { client_id: `${site.origin}/clients/other.json` })),
    ).toContain("another client_id");
    site.answer("/clients/moved.json", { status: 302, headers: { location: `${site.origin}/clients/good.json` } });
    expect(await resolveError(`${site.origin}/clients/moved.json`)).toContain("redirect (302), which is not followed");
    site.answer("/clients/big.json", { body: JSON.stringify({ padding: "x".repeat(10_000) }) });
    expect(await resolveError(`${site.origin}/clients/big.json`)).toContain("larger than");
    site.answer("/clients/slow.json", { delayMs: 1500, body: "{}" });
    expect(await resolveError(`${site.origin}/clients/slow.json`, documents({ timeoutMs: 300 }))).toContain(
      "did not answer",
    );
    site.answer("/clients/page.json", { headers: { "content-type": "text/html" }, body: "<html></html>" });
    expect(await resolveError(`${site.origin}/clients/page.json`)).toContain("application/json");
    expect(
      await resolveError(documentAt("/clients/bad-redirect.json", { redirect_uris: ["http://app.example/cb"] })),
    ).toContain("redirect URI");
    site.answer("/clients/missing.json", { status: 404, body: "{}" });
    expect(await resolveError(`${site.origin}/clients/missing.json`)).toContain("answered 404");
  });

  it("never fetches from loopback or private addresses unless they are the one allowed origin (SSRF)", async () => {
    const clientId = documentAt("/clients/ssrf.json");
    // The same document, loopback not allowed: refused after DNS says localhost is 127.0.0.1.
    expect(await resolveError(clientId, documents({ allowLoopback: false }))).toContain("not public");
    expect(site.hits("/clients/ssrf.json")).toBe(0);
    const literal = `https://127.0.0.1:${site.port}/clients/ssrf.json`;
    expect(await resolveError(literal, documents({ allowLoopback: false }))).toContain("not a public one");
    for (const url of [
      "https://10.0.0.7/client.json",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/client.json",
      "https://[fd00::1]/client.json",
      "https://192.168.1.1/client.json",
    ]) {
      expect(await resolveError(url), url).toContain("not a public one");
    }
    // Another port on the allowed host is another origin.
    expect(await resolveError(`https://localhost:1/clients/ssrf.json`)).toContain("not public");
  });

  it("accepts only https URLs with a path, in normal form, without credentials or fragments", () => {
    expect(documentUrlProblem("https://app.example/client.json")).toBeNull();
    expect(documentUrlProblem("http://app.example/client.json")).toContain("https");
    expect(documentUrlProblem("https://app.example/")).toContain("path");
    expect(documentUrlProblem("https://app.example")).toContain("normal form");
    expect(documentUrlProblem("https://APP.example/client.json")).toContain("normal form");
    expect(documentUrlProblem("https://app.example/a/../client.json")).toContain("normal form");
    expect(documentUrlProblem("https://user:pw@app.example/client.json")).toContain("credentials");
    expect(documentUrlProblem("https://app.example/client.json#x")).toContain("fragment");
  });

  it("judges addresses: public ones only, mapped IPv4 judged as IPv4", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "not an address",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it("keeps copies between a minute and a day, an hour without caching headers", () => {
    expect(freshSeconds(undefined)).toBe(3600);
    expect(freshSeconds("max-age=5")).toBe(60);
    expect(freshSeconds("public, max-age=600")).toBe(600);
    expect(freshSeconds("max-age=9999999")).toBe(86400);
    expect(freshSeconds("no-store")).toBe(60);
  });
});
