import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { designTokens } from "@shelf/api";
import { recordSecret } from "@shelf/api/testing";
import { expectServerScenarios } from "@shelf/api/testing/conformance";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startDesignServer } from "./server";

/**
 * The design MCP on the production server over real HTTP, on the demo gallery: the SDK's client lists and calls every
 * tool with tokens of each role, the MCP conformance suite's server scenarios that apply pass, and an unknown
 * protocol version is 400.
 */

let testDb: TestDatabase;
let server: RunningServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startDesignServer({ DATABASE_URL: testDb.url, SHELF_DEMO: "1", SHELF_RATE_LIMIT_PER_MINUTE: "1000" });
  for (const [name, roles] of [
    ["reader", ["read"]],
    ["writer", ["read", "write"]],
    ["reviewer", ["read", "review"]],
  ] as const) {
    const made = await designTokens.createDesignToken(testDb.db, { name, roles: [...roles] }, "shelf");
    recordSecret(made.token);
    tokens[name] = made.token;
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await testDb?.drop();
});

const mcpUrl = () => new URL(`${server.url.replace("127.0.0.1", "localhost")}/mcp`);

async function connect(token: string) {
  const client = new Client({ name: "design-mcp-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

describe("the design MCP on the production server", () => {
  it("lets a read token search the demo gallery and read; a write token draft and submit; a review token approve", async () => {
    const reader = await connect(tokens.reader as string);
    expect((await reader.listTools()).tools.map((tool) => tool.name)).not.toContain("draft_version");
    const found = await reader.callTool({ name: "search_screens", arguments: { lang: "ko" } });
    const screens = found.structuredContent as {
      items: { id: number; app: { id: number }; thumbnail: { image: { url: string } } }[];
    };
    expect(screens.items.length).toBeGreaterThan(0);
    // Images by URL, served by this host.
    const image = await fetch(screens.items[0]?.thumbnail.image.url.replace("localhost", "127.0.0.1") as string);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toMatch(/^image\//);
    for (const [name, args] of [
      ["get_screen", { id: screens.items[0]?.id }],
      ["get_app", { id: screens.items[0]?.app.id }],
      ["list_patterns", {}],
      ["get_taxonomy", { kind: "page_type" }],
      ["get_manifest", {}],
    ] as const) {
      const answer = await reader.callTool({ name, arguments: args });
      expect(answer.isError ?? false, name).toBe(false);
      expect(answer.structuredContent, name).toBeTruthy();
    }

    const writer = await connect(tokens.writer as string);
    const slug = "e2e-guide";
    const drafted = await writer.callTool({
      name: "draft_version",
      arguments: { slug, base_version: 0, body: "# E2E\n\nText." },
    });
    expect((drafted.structuredContent as { version: { number: number } }).version.number).toBe(1);
    await writer.callTool({ name: "submit_version", arguments: { slug, number: 1 } });
    const reviewer = await connect(tokens.reviewer as string);
    const pending = await reviewer.callTool({ name: "list_pending_reviews", arguments: {} });
    expect(JSON.stringify(pending.structuredContent)).toContain(slug);
    const approved = await reviewer.callTool({
      name: "review_version",
      arguments: { slug, version: 1, verdict: "approved", reason: "Good." },
    });
    expect((approved.structuredContent as { version: { status: string } }).version.status).toBe("approved");
    const read = await reader.callTool({ name: "read_document", arguments: { slug } });
    expect((read.structuredContent as { version: { body: string } }).version.body).toContain("Text.");
    expect((await reader.callTool({ name: "list_versions", arguments: { slug } })).isError ?? false).toBe(false);
    for (const client of [reader, writer, reviewer]) await client.close();
    expect(server.output()).not.toContain(tokens.reader as string);
  });

  it("answers an unknown MCP-Protocol-Version with 400 for initialize, tools/list and tools/call", async () => {
    for (const method of ["initialize", "tools/list", "tools/call"]) {
      const response = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${tokens.reader}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2024-01-01",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }),
      });
      expect(response.status, method).toBe(400);
      expect((await response.json()).error.data.supported).toContain("2025-11-25");
    }
  });

  it("passes the MCP conformance suite's server scenarios that apply to this endpoint", async () => {
    await expectServerScenarios(`${server.url}/mcp`, tokens.reader as string, [
      "server-initialize",
      "ping",
      "tools-list",
      "dns-rebinding-protection",
    ]);
  }, 240_000);
});
