import { designTokens } from "@shelf/api";
import { createAccountWithKey } from "@shelf/api/testing";
import { READY_AS_TESTED } from "@shelf/api/testing/apps";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startDesignServer } from "./server";

/** The design app's production server: its agent API on the shared edge, the operator's endpoints, its pages. */

let testDb: TestDatabase;
let server: RunningServer;
let accountKey: string;
let readToken: string;
let collectToken: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startDesignServer({ DATABASE_URL: testDb.url, SHELF_RATE_LIMIT_PER_MINUTE: "1000" });
  accountKey = (await createAccountWithKey(testDb.db)).key;
  readToken = (await designTokens.createDesignToken(testDb.db, { name: "reader", roles: ["read"] }, "shelf")).token;
  collectToken = (await designTokens.createDesignToken(testDb.db, { name: "collector", roles: ["collect"] }, "shelf"))
    .token;
});
afterAll(async () => {
  await server?.stop();
  await testDb?.drop();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers, redirect: "manual" });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("the design agent API on /api", () => {
  it("serves its OpenAPI 3.1 document at /api/openapi.json: the design routes (agent API, gallery and MCP), not the account API's", async () => {
    const response = await get("/api/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const document = await response.json();
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.title).toBe("Shelf design host: agent API and gallery");
    expect(document.paths["/api/agent/docs/{slug}"]?.get).toBeDefined();
    expect(document.paths["/api/library"]).toBeUndefined();
    // The design MCP is a route of the design host like the others, documented at its own address.
    expect(document.paths["/mcp"]?.post).toBeDefined();
    expect(Object.keys(document.paths).filter((path) => !/^\/(api\/agent|api\/v1|\.well-known)\//.test(path))).toEqual([
      "/mcp",
    ]);
    expect(document.servers).toEqual([{ url: server.url.replace("127.0.0.1", "localhost") }]);
  });

  it("refuses a request without a token, and an account API key, with the contract's 401 bodies", async () => {
    const missing = await get("/api/agent/docs/x");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ message: expect.any(String), error: "missing_api_key" });
    const accountKeyAnswer = await get("/api/agent/docs/x", bearer(accountKey));
    expect(accountKeyAnswer.status).toBe(401);
    expect(await accountKeyAnswer.json()).toEqual({ message: expect.any(String), error: "invalid_api_key" });
  });

  it("serves a design token with the role, and names the role another token lacks", async () => {
    const response = await get("/api/agent/docs/no-such-document", bearer(readToken));
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({ message: expect.any(String), error: expect.stringMatching(/not_found/) });
    const wrongRole = await get("/api/agent/docs/no-such-document", bearer(collectToken));
    expect(wrongRole.status).toBe(403);
    expect(await wrongRole.json()).toEqual({ message: expect.stringContaining("read"), error: "missing_design_role" });
  });

  it("serves the agent API's routes outside /api too: the skill index without a token, JSON 404s beside it", async () => {
    const index = await get("/.well-known/agent-skills/index.json");
    expect(index.status).toBe(200);
    expect((await index.json()).skills).toEqual([expect.objectContaining({ name: expect.any(String) })]);
    const unknown = await get("/.well-known/no-such-file");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/json");
  });

  it("answers unknown /api paths with a JSON 404, never a page", async () => {
    for (const path of ["/api/nope", "/api/agent", "/api/agent/docs/x/", "/api/library"]) {
      const response = await get(path, bearer(readToken));
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toContain("application/json");
    }
  });
});

describe("what every app's server does", () => {
  it("gives every answer a request id: API, page, operator's endpoint and protocol error alike", async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const path of ["/api/openapi.json", "/api/agent/docs/x", "/", "/healthz", "/%zz"]) {
      const response = await get(path);
      expect(response.headers.get("x-request-id"), path).toMatch(uuid);
    }
    const ids = await Promise.all([get("/healthz"), get("/healthz")]);
    expect(ids[0]?.headers.get("x-request-id")).not.toBe(ids[1]?.headers.get("x-request-id"));
  });

  it("answers /healthz and /readyz with the database, rate-limit and artifact stores checked", async () => {
    const health = await get("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual(READY_AS_TESTED);
  });

  it("counts the design routes in its metrics, by route template", async () => {
    await get("/api/agent/docs/metrics-probe", bearer(readToken));
    const metrics = await get("/metrics");
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(
      /shelf_http_requests_total\{method="GET",route="GET \/api\/agent\/docs\/\{slug\}",status="404"\} [1-9]/,
    );
  });
});

describe("the pages", () => {
  it("carry the security headers and this request's CSP nonce on every script, whatever the client sends", async () => {
    const response = await get("/", { "x-shelf-nonce": "forged" });
    expect(response.status).toBe(200);
    const policy = response.headers.get("content-security-policy") as string;
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1] as string;
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("same-origin");
    expect(response.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    const html = await response.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
    expect(html).not.toContain('nonce="forged"');
  });

  it("say what the host is for, in the reader's language, with links to the API reference and document", async () => {
    const english = await (await get("/")).text();
    expect(english).toContain('<html lang="en">');
    expect(english).toContain("<h1>The design host</h1>");
    expect(english).toContain('href="/docs/api"');
    expect(english).toContain('href="/api/openapi.json"');
    expect(english).toContain("/.well-known/agent-skills/index.json");
    const korean = await (await get("/", { "accept-language": "ko-KR,ko;q=0.9,en;q=0.5" })).text();
    expect(korean).toContain('<html lang="ko">');
    expect(korean).toContain("<h1>디자인 호스트</h1>");
    const chosen = await (await get("/", { "accept-language": "ko", cookie: "shelf-locale=en" })).text();
    expect(chosen).toContain('<html lang="en">');
  });

  it("serve the API reference page over this host's document, its renderer from this host", async () => {
    const response = await get("/docs/api");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("style-src 'self' 'unsafe-inline'");
    const html = await response.text();
    expect(html).toContain("<title>Design API reference · Shelf</title>");
    expect(html).toContain('src="/docs/api/scalar.js"');
    expect(html).toContain('"url":"/api/openapi.json"');
    const script = await get("/docs/api/scalar.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
  });

  it("answer an unknown page with a 404 page in the reader's language", async () => {
    const response = await get("/no-such-page", { "accept-language": "ko" });
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).toContain('<html lang="ko">');
    expect(html).toContain("페이지를 찾을 수 없습니다");
  });
});
