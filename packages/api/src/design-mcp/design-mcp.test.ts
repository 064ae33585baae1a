import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { handleFetch } from "@shelf/server/edge/fetch";
import { createRateLimiter } from "@shelf/server/rate-limit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../account-api";
import type { ApiEdge } from "../api-edge";
import { createDesignToken } from "../auth/design-token-admin";
import { createDesignApiEdge } from "../design-api";
import { createAccountWithKey, recordSecret, TEST_BASE_URL, testAccountServices, testLog } from "../testing";
import { createTestDelivery } from "../testing/delivery";
import { randomScreens, seedRun } from "../testing/gallery";
import { MCP_INITIALIZE, mcpPost } from "../testing/mcp";
import { designTools } from "./tools";

/*
 * The design MCP in process, through the MCP SDK's own client: the tools a token's roles allow, every tool called,
 * the role checked again on each call, the transport's refusals (versions, methods, hosts, batches), and the search
 * tool against GET /api/v1/screens for generated filters (the same ids in the same order, page after page).
 */

let testDb: TestDatabase;
/** The design host's one edge: the MCP endpoint is a route of the design router, beside the REST routes. */
let edge: ApiEdge;
const tokens: Record<string, string> = {};
const MCP_URL = `${TEST_BASE_URL}/mcp`;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const delivery = await createTestDelivery();
  await seedRun(testDb.db, delivery.store, randomScreens(20261124, 90));
  const common = {
    db: testDb.db,
    delivery,
    baseUrl: TEST_BASE_URL,
    rateLimiter: createRateLimiter({ points: 1_000_000 }),
    log: testLog,
  };
  edge = createDesignApiEdge(common);
  for (const [name, roles] of [
    ["reader", ["read"]],
    ["writer", ["read", "write"]],
    ["reviewer", ["read", "review"]],
    ["collector", ["collect"]],
    ["everything", ["read", "write", "review", "collect"]],
  ] as const) {
    const made = await createDesignToken(testDb.db, { name, roles: [...roles] }, "shelf");
    recordSecret(made.token);
    tokens[name] = made.token;
  }
}, 120_000);
afterAll(() => testDb.drop());

const edgeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const request = new Request(input, init);
  const headers = new Headers(request.headers);
  headers.set("host", new URL(request.url).host);
  return handleFetch(edge, new Request(request, { headers }), "203.0.113.20");
};

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "design-mcp-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_URL), {
      fetch: edgeFetch,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function post(body: unknown, headers: Record<string, string> = {}, token = tokens.reader as string) {
  return edgeFetch(MCP_URL, mcpPost(body, { authorization: `Bearer ${token}`, ...headers }));
}

const initialize = MCP_INITIALIZE;

async function rest<T>(target: string): Promise<T> {
  const response = await handleFetch(edge, new Request(`${TEST_BASE_URL}${target}`), "203.0.113.21");
  expect(response.status, target).toBe(200);
  return (await response.json()) as T;
}

const READ_TOOLS = designTools.filter((tool) => tool.role === "read").map((tool) => tool.name);

describe("design MCP", () => {
  it("lists the tools each token's roles allow, with input and output schemas and annotations", async () => {
    const listed = async (token: string) =>
      (await (await connect(token)).listTools()).tools.map((tool) => tool.name).sort();
    expect(await listed(tokens.reader as string)).toEqual([...READ_TOOLS].sort());
    expect(await listed(tokens.writer as string)).toEqual([...READ_TOOLS, "draft_version", "submit_version"].sort());
    expect(await listed(tokens.reviewer as string)).toEqual(
      [...READ_TOOLS, "list_pending_reviews", "review_version"].sort(),
    );
    const { tools } = await (await connect(tokens.writer as string)).listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      // The write tools answer what read_document's schema says, and say so.
      if (tool.annotations?.readOnlyHint) expect(tool.outputSchema?.type, tool.name).toBe("object");
      else expect(tool.description, tool.name).toContain("as read_document does");
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean");
    }
    expect(tools.find((tool) => tool.name === "draft_version")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
  });

  it("lists every tool in under 20 KB: no date-time regex beside its format, no bounds that are only 2^53", async () => {
    const answer = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, {}, tokens.everything);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    const { result } = JSON.parse(text) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((tool) => tool.name).sort()).toEqual(designTools.map((tool) => tool.name).sort());
    expect(Buffer.byteLength(text)).toBeLessThan(20_000);
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const formatted = [...text.matchAll(/\{[^{}]*"format"[^{}]*\}/g)].map((match) => match[0]);
    expect(formatted.length).toBeGreaterThan(0);
    for (const schema of formatted) expect(schema).not.toContain('"pattern"');
  });

  it("refuses tokens without the read role (403 naming it), account keys and no token (401)", async () => {
    const collector = await post(initialize, {}, tokens.collector as string);
    expect(collector.status).toBe(403);
    expect(await collector.json()).toMatchObject({
      error: "missing_design_role",
      message: expect.stringContaining("read"),
    });
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read", "products.read"] });
    const account = await post(initialize, {}, key);
    expect(account.status).toBe(401);
    expect(await account.json()).toMatchObject({ error: "invalid_api_key" });
    // RFC 6750 3: a 401 carries the Bearer challenge; no resource metadata, as no authorization server issues these.
    expect(account.headers.get("www-authenticate")).toBe(
      'Bearer realm="Shelf design MCP", error="invalid_token", error_description="This endpoint takes design agent tokens only."',
    );
    const none = await edgeFetch(MCP_URL, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(initialize),
    });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: "missing_api_key" });
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="Shelf design MCP"');
  });

  it("calls every read tool, answering structured content in its output schema", async () => {
    const client = await connect(tokens.writer as string);
    const search = await client.callTool({ name: "search_screens", arguments: {} });
    const found = search.structuredContent as { items: { id: number; app: { id: number } }[]; total: number };
    const page = await rest<{ items: { id: number }[]; total: number }>("/api/v1/screens?facets=false");
    expect(found.items.map((item) => item.id)).toEqual(page.items.map((item) => item.id));
    expect(found.total).toBe(page.total);
    const first = found.items[0] as { id: number; app: { id: number } };
    const screen = await client.callTool({ name: "get_screen", arguments: { id: first.id } });
    expect((screen.structuredContent as { screen: { id: number } }).screen.id).toBe(first.id);
    const app = await client.callTool({ name: "get_app", arguments: { id: first.app.id } });
    expect((app.structuredContent as { app: { id: number } }).app.id).toBe(first.app.id);
    const patterns = await client.callTool({ name: "list_patterns", arguments: {} });
    expect((patterns.structuredContent as { items: unknown[] }).items.length).toBeGreaterThan(0);
    const taxonomy = await client.callTool({ name: "get_taxonomy", arguments: { kind: "pattern" } });
    expect(Object.keys((taxonomy.structuredContent as { taxonomy: object }).taxonomy)).toEqual(["patterns"]);
    const manifest = await client.callTool({ name: "get_manifest", arguments: {} });
    expect((manifest.structuredContent as { skill: { archive: { url: string } } }).skill.archive.url).toMatch(/^http/);
    // `limit` screens a page; the cursor alone carries the query, and is refused with another one.
    type Found = { items: { id: number }[]; next_cursor: string };
    const five = (await client.callTool({ name: "search_screens", arguments: { sort: "name", limit: 5 } }))
      .structuredContent as Found;
    const more = (await client.callTool({ name: "search_screens", arguments: { cursor: five.next_cursor, limit: 5 } }))
      .structuredContent as Found;
    const ten = await rest<{ items: { id: number }[] }>("/api/v1/screens?facets=false&sort=name&limit=10");
    expect([...five.items, ...more.items].map((item) => item.id)).toEqual(ten.items.map((item) => item.id));
    expect(ten.items).toHaveLength(10);
    const other = await client.callTool({
      name: "search_screens",
      arguments: { sort: "newest", cursor: five.next_cursor },
    });
    expect(other.isError).toBe(true);
    expect(JSON.stringify(other.content)).toContain("cursor");
    // A name the gallery does not know: a tool error naming the field, not an empty list.
    const unknown = await client.callTool({ name: "search_screens", arguments: { patterns: ["no-such-pattern"] } });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain("patterns");
    // A tool that does not exist is a protocol error (-32602).
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    // Its message once: the client puts the "MCP error -32602:" prefix before it, the server does not.
    const failed = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((error: Error) => error);
    expect((failed as Error).message).toBe("MCP error -32602: Unknown tool: no_such_tool.");
    const raw = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "no_such_tool", arguments: {} } },
      {},
      tokens.writer,
    );
    expect((await raw.json()).error).toEqual({ code: -32602, message: "Unknown tool: no_such_tool." });
  });

  it("drafts, submits and reviews a document; a stale base names the newest version; roles are checked on each call", async () => {
    const writer = await connect(tokens.writer as string);
    const reader = await connect(tokens.reader as string);
    const reviewer = await connect(tokens.reviewer as string);
    const slug = "design-mcp-guide";
    const drafted = await writer.callTool({
      name: "draft_version",
      arguments: { slug, base_version: 0, body: "# Guide\n\nOne." },
    });
    expect(drafted.isError ?? false).toBe(false);
    expect((drafted.structuredContent as { version: { number: number } }).version.number).toBe(1);
    const stale = await writer.callTool({
      name: "draft_version",
      arguments: { slug, base_version: 0, body: "# Guide\n\nTwo." },
    });
    expect(stale.isError).toBe(true);
    expect(JSON.parse((stale.content as { text: string }[])[0]?.text as string)).toMatchObject({
      error: "stale_base_version",
      latest_version: 1,
    });
    // The read token may not draft: a JSON-RPC error naming the role, even though the tool is not listed for it.
    await expect(
      reader.callTool({ name: "draft_version", arguments: { slug, base_version: 1, body: "# Guide" } }),
    ).rejects.toThrow(/write role/);
    expect((await writer.callTool({ name: "submit_version", arguments: { slug, number: 1 } })).isError ?? false).toBe(
      false,
    );
    const pending = await reviewer.callTool({ name: "list_pending_reviews", arguments: {} });
    expect((pending.structuredContent as { items: { slug: string }[] }).items.map((item) => item.slug)).toContain(slug);
    const reviewed = await reviewer.callTool({
      name: "review_version",
      arguments: { slug, version: 1, verdict: "approved", reason: "Clear." },
    });
    expect((reviewed.structuredContent as { version: { status: string } }).version.status).toBe("approved");
    const read = await reader.callTool({ name: "read_document", arguments: { slug } });
    expect((read.structuredContent as { version: { body: string } }).version.body).toContain("One.");
    const versions = await reader.callTool({ name: "list_versions", arguments: { slug } });
    expect((versions.structuredContent as { items: unknown[] }).items).toHaveLength(1);
  });

  it("answers an unknown MCP-Protocol-Version with 400 on initialize, tools/list and tools/call, listing those it speaks", async () => {
    for (const message of [
      initialize,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_patterns", arguments: {} } },
    ]) {
      const response = await post(message, { "mcp-protocol-version": "1999-01-01" });
      expect(response.status, message.method).toBe(400);
      const body = await response.json();
      expect(body.error.message, message.method).toContain("1999-01-01");
      expect(body.error.data.supported, message.method).toContain("2025-11-25");
      // The account MCP's code for it: one error, one answer on both endpoints.
      expect(body.error, message.method).toMatchObject({
        code: -32000,
        data: { error: "mcp_protocol_version_unsupported" },
      });
    }
    // Without the header: served (the version initialize negotiated applies).
    expect((await post({ jsonrpc: "2.0", id: 4, method: "tools/list" })).status).toBe(200);
  });

  it("is documented without a session header, where the account MCP's operations list one", async () => {
    const headers = (document: ApiEdge["document"], path: string, method: "post" | "delete") =>
      ((document.paths?.[path]?.[method]?.parameters ?? []) as { in: string; name: string }[])
        .filter((parameter) => parameter.in === "header")
        .map((parameter) => parameter.name);
    expect(headers(edge.document, "/mcp", "post")).toEqual(["MCP-Protocol-Version"]);
    const account = createAccountApiEdge({
      ...(await testAccountServices()),
      db: testDb.db,
      baseUrl: TEST_BASE_URL,
      rateLimiter: createRateLimiter({ points: 1_000_000 }),
      log: testLog,
    });
    expect(headers(account.document, "/api/mcp", "post")).toEqual(["Mcp-Session-Id", "MCP-Protocol-Version"]);
    expect(headers(account.document, "/api/mcp", "delete")).toEqual(["Mcp-Session-Id", "MCP-Protocol-Version"]);
  });

  it("is stateless: GET and DELETE 405 with Allow, notifications 202 without a body, batches and other hosts refused", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await edgeFetch(MCP_URL, { method, headers: { authorization: `Bearer ${tokens.reader}` } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    }
    const note = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe("");
    const batch = await post([initialize, initialize]);
    expect(batch.status).toBe(400);
    expect((await batch.json()).error.code).toBe(-32600);
    // A body over the limit: 413 with a JSON-RPC error, whatever JSON it would have been.
    const large = await post({ ...initialize, padding: "x".repeat(1024 * 1024) });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, data: { error: "payload_too_large" } },
    });
    const rebinding = await handleFetch(
      edge,
      new Request(MCP_URL, {
        method: "POST",
        headers: { host: "evil.example", "content-type": "application/json", authorization: `Bearer ${tokens.reader}` },
        body: JSON.stringify(initialize),
      }),
      "203.0.113.22",
    );
    expect(rebinding.status).toBe(403);
    const origin = await post(initialize, { origin: "https://evil.example" });
    expect(origin.status).toBe(403);
  });

  it("searches like GET /api/v1/screens: the same ids in the same order for generated filters, page after page", async () => {
    const taxonomy = await rest<{ taxonomy: Record<string, { slug: string }[]> }>("/api/v1/taxonomy");
    const names = (list: string) => (taxonomy.taxonomy[list] ?? []).map((term) => term.slug);
    const client = await connect(tokens.reader as string);
    const filters = fc.record(
      {
        kind: fc.constantFrom(...names("page_types")),
        patterns: fc.subarray(names("patterns"), { maxLength: 2 }),
        elements: fc.subarray(names("elements"), { maxLength: 1 }),
        viewport: fc.constantFrom("desktop", "mobile"),
        lang: fc.constantFrom("ko", "en"),
        mode: fc.constantFrom("light", "dark"),
        sort: fc.constantFrom("newest", "oldest", "name"),
        q: fc.constantFrom("화면", "page", "결제", "설정"),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(filters, async (chosen) => {
        const query = new URLSearchParams({ facets: "false", cols: "4" });
        for (const [name, value] of Object.entries(chosen)) {
          for (const item of Array.isArray(value) ? value : [value]) query.append(name, item);
        }
        let cursor: string | undefined;
        for (let page = 1; page <= 3; page++) {
          query.set("page", String(page));
          const expected = await rest<{ items: { id: number }[]; pages: number }>(`/api/v1/screens?${query}`);
          const answer = await client.callTool({
            name: "search_screens",
            arguments: { ...chosen, ...(cursor ? { cursor } : {}) },
          });
          const got = answer.structuredContent as { items: { id: number }[]; next_cursor: string | null };
          expect(got.items.map((item) => item.id)).toEqual(expected.items.map((item) => item.id));
          if (page >= expected.pages) {
            expect(got.next_cursor).toBeNull();
            break;
          }
          cursor = got.next_cursor as string;
          expect(cursor).toEqual(expect.any(String));
        }
      }),
      { numRuns: 40, seed: 20261124 },
    );
  }, 120_000);
});
