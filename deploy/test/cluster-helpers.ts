import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { hashPassword } from "@shelf/api";
import { createAccount, createAccountWithKey, createProduct, grantEntitlement } from "@shelf/api/testing";
import { createDb, type DbHandle } from "@shelf/db";
import { databaseUrl } from "@shelf/db/server";
import postgres from "postgres";
import { inject } from "vitest";
import { type Cluster, startCluster } from "../cluster";
import "@shelf/db/testing";

export type TestCluster = Cluster & { db: DbHandle; dataDir: string; drop: () => Promise<void> };

/**
 * A whole cluster (HAProxy, `web` + `design` instances, a Redis and an S3 server of its own) on an EMPTY database of
 * the test run's server: the instances, started at the same moment, migrate it themselves.
 */
export async function startTestCluster(options: { web: number; design: number }): Promise<TestCluster> {
  const serverUrl = inject("dbServerUrl");
  const name = `${inject("dbRunPrefix")}_cluster_${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end({ timeout: 5 });
  const url = databaseUrl(serverUrl, name);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-cluster-"));
  const cluster = await startCluster({
    ...options,
    dataDir,
    databaseUrl: url,
    env: { SHELF_DEMO: "false", SHELF_HOUSEKEEPING_INTERVAL_MINUTES: "0" },
  });
  const db = createDb(url, { max: 4 });
  return {
    ...cluster,
    db,
    dataDir,
    drop: async () => {
      await db.close();
      await cluster.stop();
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end({ timeout: 5 });
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** An account entitled to a product, with a key holding every account ability. */
export async function entitledKey(db: DbHandle["db"]) {
  const product = await createProduct(db, { published: true });
  const { account, key, record } = await createAccountWithKey(db);
  await grantEntitlement(db, account.id, product.id);
  return { account, key, keyId: record.id, productId: product.id };
}

/** The web instances that answered through the proxy since `before` (a `serverResponses` reading). */
export async function servedSince(cluster: Cluster, before: Map<string, number>): Promise<string[]> {
  const after = await cluster.serverResponses();
  return [...after]
    .filter(([name, count]) => name.startsWith("web/") && count > (before.get(name) ?? 0))
    .map(([name]) => name.slice("web/".length))
    .sort();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds or `ms` pass; resolves with how long it took, or throws. */
export async function waitUntil(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
  return Date.now() - started;
}

/** One request's outcome under load: its status (0 when the connection failed) and when it ended. */
export type Outcome = { status: number; at: number; label: string };

/** A fetch that never throws: a failed connection is status 0. */
export async function attempt(url: string, init: RequestInit, label: string): Promise<Outcome> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    return { status: response.status, at: Date.now(), label };
  } catch {
    return { status: 0, at: Date.now(), label };
  }
}

export type Send = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Requests to one instance directly, as the proxy forwards them: with the proxy's Host (the account MCP refuses any
 * other, against DNS rebinding). fetch cannot set Host, so this goes through node:http.
 */
export function asProxied(proxyUrl: string): Send {
  const host = new URL(proxyUrl).host;
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const request = http.request(
        new URL(url),
        { method: init.method ?? "GET", headers: { ...headers, host } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const one of Array.isArray(value) ? value : [value ?? ""]) responseHeaders.append(name, one);
            }
            const body = [204, 205, 304].includes(status) ? null : Buffer.concat(chunks);
            resolve(new Response(body, { status, headers: responseHeaders }));
          });
        },
      );
      request.on("error", reject);
      request.end(init.body === undefined || init.body === null ? undefined : String(init.body));
    });
}

/** An account that signs in with a password. */
export async function personWithPassword(db: DbHandle["db"]) {
  const password = `a long passphrase ${randomBytes(6).toString("hex")}`;
  const name = `Cluster Person ${randomBytes(3).toString("hex")}`;
  const account = await createAccount(db, { name, passwordHash: await hashPassword(password) });
  return { email: account.email, name, password };
}

/** Signs in through next-auth's own endpoints on one instance, as a browser would; returns the cookie header. */
export async function signIn(
  baseUrl: string,
  person: { email: string; password: string },
  send: Send = fetch,
): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, ...value] = (pair as string).split("=");
      jar.set(name as string, value.join("="));
    }
  };
  const header = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const csrf = await send(`${baseUrl}/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signedIn = await send(`${baseUrl}/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: header() },
    body: new URLSearchParams({ csrfToken, email: person.email, password: person.password, json: "true" }),
    redirect: "manual",
  });
  keep(signedIn);
  if (![...jar.keys()].some((name) => name.includes("session-token"))) {
    throw new Error(`sign-in on ${baseUrl} set no session cookie (${signedIn.status})`);
  }
  return header();
}

/**
 * What the person's browser does at an authorization URL on one instance: the consent page, then "Allow" with the
 * scopes the page leaves ticked. Returns where the browser is sent back to.
 */
export async function consent(
  baseUrl: string,
  authorizationUrl: URL,
  cookie: string,
  send: Send,
  origin: string,
): Promise<URL> {
  let page = await send(authorizationUrl, { headers: { cookie } });
  if (page.status === 307 || page.status === 303) {
    // The page adds the redirect URI to its address once (a path on the proxy's host: this instance again).
    const next = new URL(page.headers.get("location") as string, baseUrl);
    page = await send(new URL(next.pathname + next.search, baseUrl), { headers: { cookie } });
  }
  if (page.status !== 200) throw new Error(`the consent page answered ${page.status}`);
  const html = await page.text();
  const field = (name: string) =>
    (new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "").replaceAll("&amp;", "&");
  const decided = await send(`${baseUrl}/oauth/authorize/decision`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin },
    body: new URLSearchParams([
      ["request", field("request")],
      ["token", field("token")],
      ["decision", "approve"],
      ...[...html.matchAll(/<input[^>]*name="scope"[^>]*>/g)]
        .filter(([input]) => !/\sdisabled/.test(input))
        .map(([input]) => ["scope", /value="([^"]*)"/.exec(input)?.[1] ?? ""]),
    ]),
  });
  if (decided.status !== 303) throw new Error(`the decision answered ${decided.status}: ${await decided.text()}`);
  return new URL(decided.headers.get("location") as string);
}

export const PROTOCOL = "2025-11-25";
export const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** One JSON-RPC request to an instance's account MCP endpoint. */
export async function mcpCall(send: Send, baseUrl: string, headers: Record<string, string>, message: object) {
  const response = await send(`${baseUrl}/api/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
  });
  const text = await response.text();
  return { response, body: text ? (JSON.parse(text) as unknown) : null };
}
