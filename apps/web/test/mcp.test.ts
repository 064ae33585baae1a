import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expectServerScenarios } from "@shelf/api/testing/conformance";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCli } from "./admin-cli";
import { type RunningServer, startServer } from "./server";

/**
 * The account MCP on the production server, over real HTTP: the MCP SDK's client with an account API key, and one
 * session served by two app processes (sessions live in PostgreSQL, not in a process).
 */

let testDb: TestDatabase;
let dataDir: string;
let first: RunningServer;
let second: RunningServer;
let key: string;
let productId: number;
const admin = adminCli(() => ({ databaseUrl: testDb.url, dataDir }));

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-mcp-e2e-"));
  await admin("account:create", "--email", "mia@example.test", "--name", "Mia");
  productId = (await admin("product:create", "--name", "Model Kit", "--price-cents", "1900")).id;
  await admin("entitlement:grant", "--email", "mia@example.test", "--product", String(productId));
  key = (await admin("key:create", "--email", "mia@example.test", "--abilities", "mcp.read,products.read")).key;
  const env = { DATABASE_URL: testDb.url, SHELF_DATA_DIR: dataDir, SHELF_RATE_LIMIT_PER_MINUTE: "1000" };
  [first, second] = await Promise.all([startServer(env), startServer(env)]);
}, 240_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await testDb?.drop();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

function connect(server: RunningServer) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  return { transport, client: new Client({ name: "shelf-e2e", version: "1.0.0" }) };
}

describe("account MCP on the production server", () => {
  it("serves the SDK client: initialize, tools/list, tools/call with a key holding mcp.read", async () => {
    const { client, transport } = connect(first);
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["library_get", "products_detail", "products_updates"]),
    );
    const result = await client.callTool({ name: "products_detail", arguments: { product: productId } });
    expect(result.isError).toBeFalsy();
    const detail = JSON.parse((result.content as { text: string }[])[0]?.text ?? "");
    expect(detail.product.name).toBe("Model Kit");
    await client.close();
    expect(first.output()).not.toContain(key);
  });

  it("lets a second app process serve a session the first one opened, and ends it for both", async () => {
    const { client, transport } = connect(first);
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    const onSecond = (body: unknown, method = "POST") =>
      fetch(`${second.url}/api/mcp`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-11-25",
        },
        body: method === "POST" ? JSON.stringify(body) : undefined,
      });
    const listed = await onSecond({ jsonrpc: "2.0", id: 7, method: "tools/list" });
    expect(listed.status).toBe(200);
    expect((await listed.json()).result.tools.length).toBeGreaterThan(3);

    const ended = await onSecond(null, "DELETE");
    expect(ended.status).toBe(204);
    await expect(client.listTools()).rejects.toThrow(/404|not found/i);
    await client.close();
  });

  it("refuses an account API key without mcp.read, and answers GET with 405", async () => {
    const plain = (await admin("key:create", "--email", "mia@example.test", "--abilities", "products.read")).key;
    const response = await fetch(`${first.url}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${plain}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="products.read mcp.read"',
    );
    const get = await fetch(`${first.url}/api/mcp`, { headers: { authorization: `Bearer ${key}` } });
    expect(get.status).toBe(405);
  });

  /**
   * The MCP conformance suite's server scenarios that apply to an endpoint whose tools are the account's (the
   * others need the suite's own fixture tools, prompts or resources), through a proxy that adds the bearer key.
   */
  it("passes the MCP conformance suite's server scenarios that apply to this endpoint", async () => {
    await expectServerScenarios(`${first.url}/api/mcp`, key, [
      "server-initialize",
      "server-session-lifecycle",
      "ping",
      "logging-set-level",
      "tools-list",
      "dns-rebinding-protection",
    ]);
  }, 240_000);
});
