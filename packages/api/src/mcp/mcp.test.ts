import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { handleFetch } from "@shelf/server/edge/fetch";
import type { Edge } from "@shelf/server/edge/pipeline";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountAbilities } from "../abilities";
import { createAccountApiEdge } from "../account-api";
import type { AccountServices } from "../context";
import { appRouter } from "../root";
import { createAccountWithKey, createProduct, grantEntitlement, TEST_BASE_URL, testLog } from "../testing";
import { testAccountServices } from "../testing/harness";
import { edgeFetcher, MCP_INITIALIZE, mcpPost } from "../testing/mcp";
import { accountTools } from "./tools";

/**
 * The account MCP in process, driven by the MCP SDK's own client through a fetch that reaches the edge directly:
 * sessions, the tools a key's abilities allow, calls that run the procedures' checks, and the HTTP answers a client
 * relies on (401 challenge, 403 insufficient_scope, 400 and 404 for sessions, DNS rebinding refused).
 */

let testDb: TestDatabase;
let edge: Edge;
const MCP_URL = `${TEST_BASE_URL}/api/mcp`;

/** The account API's edge on this file's database, with a rate limit of `points` and any other option named. */
function accountEdge(points: number, options: { maxBodyBytes?: number } = {}): Edge {
  return createAccountApiEdge({
    ...services,
    db: testDb.db,
    baseUrl: TEST_BASE_URL,
    rateLimiter: createRateLimiter({ points }),
    log: testLog,
    ...options,
  });
}

/** The account host's services of this file's edges (made once: the shared test delivery). */
let services: AccountServices;

beforeAll(async () => {
  services = await testAccountServices();
  testDb = await createTestDatabase();
  edge = accountEdge(1_000_000);
});
afterAll(() => testDb.drop());

const edgeFetch = edgeFetcher(() => edge, "203.0.113.9");

async function connect(key: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: edgeFetch,
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "shelf-test-client", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

function post(body: unknown, headers: Record<string, string> = {}) {
  return edgeFetch(MCP_URL, mcpPost(body, headers));
}

const initialize = MCP_INITIALIZE;

describe("account MCP", () => {
  it("refuses a JSON-RPC batch (2025-11-25 has none), for one unit of the rate limit", async () => {
    const limited = accountEdge(3);
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read", "products.read"] });
    const send = (body: unknown) =>
      handleFetch(
        limited,
        new Request(MCP_URL, mcpPost(body, { authorization: `Bearer ${key}`, host: new URL(MCP_URL).host })),
        "203.0.113.10",
      );
    const calls = Array.from({ length: 100 }, (_, index) => ({
      jsonrpc: "2.0",
      id: index + 2,
      method: "tools/call",
      params: { name: "library_get", arguments: {} },
    }));
    const batch = await send([initialize, ...calls]);
    expect(batch.status).toBe(400);
    // The REST answers' common headers, here too.
    expect(batch.headers.get("x-content-type-options")).toBe("nosniff");
    expect(batch.headers.get("x-request-id")).toBeTruthy();
    expect(batch.headers.get("x-ratelimit-limit")).toBe("3");
    expect(batch.headers.get("x-ratelimit-remaining")).toBe("2");
    expect(await batch.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    // The batch took one of the three: two more requests, then the limit.
    const statuses = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await send(initialize)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("answers a call of a tool that does not exist with JSON-RPC error -32602", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read", "products.read"] });
    const { client } = await connect(key);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      // The message once: the client puts the "MCP error -32602:" prefix before it, the server does not.
      message: "MCP error -32602: Unknown tool: no_such_tool.",
    });
    await client.close();
  });

  it("tells clients what a tool does to the account: reads, safe repeats, and what takes something away", () => {
    const annotations = new Map(accountTools(appRouter).map((tool) => [tool.name, tool.annotations]));
    expect(annotations.get("library_get")).toEqual({
      title: expect.any(String),
      readOnlyHint: true,
      openWorldHint: false,
    });
    // Recording setup progress is a PUT: safe to repeat, takes nothing away.
    expect(annotations.get("setup_record")).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    // A day uploaded again overwrites itself, and a seated device checking again takes no new seat.
    expect(annotations.get("device_usage")).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(annotations.get("license_check")).toMatchObject({ destructiveHint: false, idempotentHint: true });
    // Recording an install without its time adds a row; activating again replaces the device's earlier keys.
    expect(annotations.get("device_install")).toMatchObject({ destructiveHint: false, idempotentHint: false });
    expect(annotations.get("device_bulk_activate")).toMatchObject({ destructiveHint: true, idempotentHint: false });
    for (const [name, hints] of annotations) {
      expect(hints.openWorldHint, name).toBe(false);
      if (!hints.readOnlyHint) expect(typeof hints.destructiveHint, name).toBe("boolean");
    }
  });

  it("lists the tools a key's abilities allow and calls them through the procedures", async () => {
    const { account, key } = await createAccountWithKey(testDb.db, {
      abilities: ["mcp.read", "products.read"],
    });
    const product = await createProduct(testDb.db, { name: "Tool Time" });
    await grantEntitlement(testDb.db, account.id, product.id);
    const { client, transport } = await connect(key);
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client.getServerVersion()?.name).toBe("shelf-account");

    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain("library_get");
    expect(names).toContain("products_detail");
    // Not held by this key: no order or device tools.
    expect(names).not.toContain("orders_list");
    expect(names).not.toContain("device_entitlements");
    const detail = tools.find((tool) => tool.name === "products_detail");
    expect(detail?.inputSchema).toMatchObject({ type: "object", required: ["product"] });
    expect(detail?.annotations?.readOnlyHint).toBe(true);

    const library = await client.callTool({ name: "library_get", arguments: {} });
    expect(library.isError).toBeFalsy();
    const items = JSON.parse((library.content as { text: string }[])[0]?.text ?? "").items;
    expect(items.map((item: { product: { name: string } }) => item.product.name)).toEqual(["Tool Time"]);

    // The procedure's own checks run again: a product the account does not hold.
    const other = await createProduct(testDb.db);
    const refused = await client.callTool({ name: "products_detail", arguments: { product: other.id } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]?.text ?? "").error).toBe(
      "product_entitlement_required",
    );
    // Bad arguments are the contract's field errors, as a tool error.
    const invalid = await client.callTool({ name: "products_detail", arguments: { product: "many" } });
    expect(invalid.isError).toBe(true);
    expect(JSON.parse((invalid.content as { text: string }[])[0]?.text ?? "").errors).toHaveProperty("product");

    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    const ended = await post(
      { jsonrpc: "2.0", id: 9, method: "tools/list" },
      {
        authorization: `Bearer ${key}`,
        "mcp-session-id": sessionId,
      },
    );
    expect(ended.status).toBe(404);
    await client.close();
  });

  it("lists an output schema for every tool, and answers structured content that validates against it", async () => {
    const { account, key } = await createAccountWithKey(testDb.db, { abilities: [...accountAbilities] });
    const product = await createProduct(testDb.db, { name: "Structured" });
    await grantEntitlement(testDb.db, account.id, product.id);
    const { client } = await connect(key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      accountTools(appRouter)
        .map((tool) => tool.name)
        .sort(),
    );
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe("object");
    // Every read this account can answer, with the product where one is asked for: the answer as structured
    // content in the tool's output schema (MCP 2025-06-18), and the same JSON as text for older clients.
    const validator = new AjvJsonSchemaValidator();
    const answered: string[] = [];
    for (const tool of tools.filter((listed) => listed.annotations?.readOnlyHint)) {
      const required = (tool.inputSchema.required ?? []) as string[];
      if (required.some((name) => name !== "product")) continue;
      const args = required.includes("product") ? { product: product.id } : {};
      // The SDK's client checks the answer against the output schema too, and throws when it does not hold.
      const answer = await client.callTool({ name: tool.name, arguments: args });
      if (answer.isError) continue;
      const check = validator.getValidator(tool.outputSchema as JsonSchemaType)(answer.structuredContent);
      expect(check.errorMessage, tool.name).toBeUndefined();
      expect(check.valid, tool.name).toBe(true);
      expect(JSON.parse((answer.content as { text: string }[])[0]?.text ?? ""), tool.name).toEqual(
        answer.structuredContent,
      );
      answered.push(tool.name);
    }
    expect(answered).toEqual(
      expect.arrayContaining(["library_get", "products_detail", "products_list", "orders_list"]),
    );
    await client.close();
  });

  it("answers 403 insufficient_scope for a tool the key may not call, naming the ability with what it holds", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read", "products.read"] });
    const { transport } = await connect(key);
    const response = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "orders_list", arguments: {} } },
      { authorization: `Bearer ${key}`, "mcp-session-id": transport.sessionId ?? "" },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="products.read orders.read mcp.read"',
    );
    expect((await response.json()).error).toBe("missing_api_key_ability");
  });

  it("challenges a request without a credential towards discovery, and refuses a key without mcp.read", async () => {
    const anonymous = await post(initialize);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource/api/mcp", scope="mcp.read products.read"`,
    );
    expect((await anonymous.json()).error).toBe("missing_api_key");
    const unknown = await post(initialize, { authorization: "Bearer shelf_0000000000000000000000000000000a" });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const { key } = await createAccountWithKey(testDb.db, { abilities: ["products.read"] });
    const lacking = await post(initialize, { authorization: `Bearer ${key}` });
    expect(lacking.status).toBe(403);
    expect(lacking.headers.get("www-authenticate")).toContain('scope="products.read mcp.read"');
  });

  it("answers what is not a JSON-RPC message, or not for this transport, with a JSON-RPC error naming the contract's code", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const { jsonrpc: _, ...withoutVersion } = initialize;
    const cases: [unknown, Record<string, string>, number, string][] = [
      [withoutVersion, {}, 400, "jsonrpc_invalid_request"],
      [{ ...initialize, params: "everything" }, {}, 422, ""],
      [initialize, { accept: "application/json" }, 406, "not_acceptable"],
      [initialize, { "content-type": "text/plain" }, 415, "unsupported_media_type"],
    ];
    for (const [body, headers, status, code] of cases) {
      const answer = await post(body, { authorization: `Bearer ${key}`, ...headers });
      const text = await answer.text();
      expect(answer.status, text).toBe(status);
      const parsed = JSON.parse(text);
      expect(parsed).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: expect.any(Number) } });
      if (code) expect(parsed.error.data.error, text).toBe(code);
      else expect(parsed.error).toMatchObject({ code: -32600, data: { errors: { params: expect.any(Array) } } });
    }
  });

  it("keeps sessions per credential: missing 400, unknown 404, another key's 404, notifications 202", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const { key: otherKey } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const opened = await post(initialize, { authorization: `Bearer ${key}` });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id") as string;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const list = { jsonrpc: "2.0", id: 3, method: "tools/list" };

    const missing = await post(list, { authorization: `Bearer ${key}` });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.message).toContain("Mcp-Session-Id");
    expect((await post(list, { authorization: `Bearer ${key}`, "mcp-session-id": "x".repeat(43) })).status).toBe(404);
    expect((await post(list, { authorization: `Bearer ${otherKey}`, "mcp-session-id": sessionId })).status).toBe(404);

    const notified = await post(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { authorization: `Bearer ${key}`, "mcp-session-id": sessionId },
    );
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe("");
    const listed = await post(list, { authorization: `Bearer ${key}`, "mcp-session-id": sessionId });
    expect(listed.status).toBe(200);
    // mcp.read alone opens only the tools any credential may call.
    const tools = (await listed.json()).result.tools.map((tool: { name: string }) => tool.name);
    expect(tools).toEqual(["client_config_get", "products_releases"]);

    const get = await edgeFetch(MCP_URL, { headers: { authorization: `Bearer ${key}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE, OPTIONS");
  });

  it("answers an unsupported MCP-Protocol-Version with 400 on every request, initialize included, as the design MCP does", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const sessionId = (await post(initialize, { authorization: `Bearer ${key}` })).headers.get("mcp-session-id") ?? "";
    for (const [body, headers] of [
      [initialize, {}],
      [{ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": sessionId }],
    ] as const) {
      const answer = await post(body, {
        authorization: `Bearer ${key}`,
        "mcp-protocol-version": "1999-01-01",
        ...headers,
      });
      expect(answer.status, body.method).toBe(400);
      expect(answer.headers.get("mcp-session-id"), body.method).toBeNull();
      const { error } = await answer.json();
      expect(error.message, body.method).toContain("1999-01-01");
      expect(error, body.method).toMatchObject({
        code: -32000,
        data: { error: "mcp_protocol_version_unsupported", supported: expect.arrayContaining(["2025-11-25"]) },
      });
    }
  });

  it("lets only the session's own credential end it: another key's DELETE is 404 and the session lives on", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const { key: otherKey } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const sessionId = (await post(initialize, { authorization: `Bearer ${key}` })).headers.get("mcp-session-id") ?? "";
    const end = (bearer: string) =>
      edgeFetch(MCP_URL, {
        method: "DELETE",
        headers: { authorization: `Bearer ${bearer}`, "mcp-session-id": sessionId },
      });
    const list = { jsonrpc: "2.0", id: 4, method: "tools/list" };

    expect((await end(otherKey)).status).toBe(404);
    expect((await post(list, { authorization: `Bearer ${key}`, "mcp-session-id": sessionId })).status).toBe(200);
    expect((await end(key)).status).toBe(204);
    expect((await post(list, { authorization: `Bearer ${key}`, "mcp-session-id": sessionId })).status).toBe(404);
  });

  it("refuses a message nested deeper than 64 levels with a JSON-RPC 422, before anything walks it", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const depth = 8000;
    const answer = await edgeFetch(MCP_URL, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${"[".repeat(depth)}${"]".repeat(depth)}}`,
    });
    expect(answer.status).toBe(422);
    expect((await answer.json()).error).toEqual({
      code: -32600,
      message: expect.stringContaining("64 levels"),
      data: { error: "jsonrpc_invalid_request" },
    });
  });

  it("answers a body over the limit 413 with a JSON-RPC error (never 'not valid JSON'), with the common headers", async () => {
    const small = accountEdge(1000, { maxBodyBytes: 1024 });
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const request = (body: string) =>
      handleFetch(
        small,
        new Request(MCP_URL, mcpPost(body, { authorization: `Bearer ${key}`, host: new URL(MCP_URL).host })),
      );
    // Cut off mid-way, as a client that sends too much is: the limit decides, not the JSON.
    for (const body of [
      JSON.stringify({ ...initialize, padding: "x".repeat(4000) }),
      `{"jsonrpc":"2.0",${" ".repeat(2000)}`,
    ]) {
      const answer = await request(body);
      expect(answer.status).toBe(413);
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("x-request-id")).toBeTruthy();
      expect(answer.headers.get("x-ratelimit-limit")).toBe("1000");
      expect(await answer.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringContaining("1024 bytes"), data: { error: "payload_too_large" } },
      });
    }
  });

  it("refuses a foreign Host or Origin (DNS rebinding) before reading any credential", async () => {
    const { key } = await createAccountWithKey(testDb.db, { abilities: ["mcp.read"] });
    const foreignOrigin = await post(initialize, { authorization: `Bearer ${key}`, origin: "https://evil.example" });
    expect(foreignOrigin.status).toBe(403);
    expect((await foreignOrigin.json()).error).toBe("forbidden_origin");
    const request = new Request(MCP_URL, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        host: "evil.example",
      },
      body: JSON.stringify(initialize),
    });
    const foreignHost = await handleFetch(edge, request);
    expect(foreignHost.status).toBe(403);
    const sameOrigin = await post(initialize, { authorization: `Bearer ${key}`, origin: TEST_BASE_URL });
    expect(sameOrigin.status).toBe(200);
  });
});
