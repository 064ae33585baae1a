import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { createApiKey } from "../../auth/key-issuing";
import {
  initializeExample,
  JsonRpcAnswer,
  JsonRpcMessage,
  MCP_ACCEPT,
  SESSION_ERRORS,
  TRANSPORT_ERRORS,
} from "../../mcp/messages";
import { MCP_DEFAULT_SCOPES, MCP_PATH } from "../../mcp/service";
import { openMcpSession } from "../../mcp/sessions";
import { accountProcedure } from "../../procedures";
import { router } from "../../trpc";

const tags = ["mcp"];
/**
 * The account MCP (contract 5.2): Streamable HTTP with JSON answers at `/api/mcp`, declared here like every route so
 * that the edge runs its pipeline (Host and Origin, credential, rate limit, body, database deadline, headers, the
 * error table) and the document, the security matrix and the fuzz test know it; the serving is `mcp/service.ts`.
 */
export const mcpRouter = router({
  message: accountProcedure
    .meta({
      ability: "mcp.read",
      mcp: { defaultScopes: MCP_DEFAULT_SCOPES, sessions: true },
      exactPath: true,
      alternateSuccess: { status: 202, description: "A notification or a response was accepted (no body)" },
      errors: [...TRANSPORT_ERRORS, ...SESSION_ERRORS],
      openapi: {
        method: "POST",
        path: MCP_PATH,
        tags,
        summary: "The account MCP: one JSON-RPC message (Streamable HTTP, JSON answers)",
        description: `One JSON-RPC 2.0 message per request (a batch is refused, 400 \`-32600\`), with \`Accept: ${MCP_ACCEPT}\`; the answer is JSON, never a stream. \`initialize\` opens a session (\`Mcp-Session-Id\` in the answer, sent back on every later request with \`MCP-Protocol-Version\`); \`tools/list\` lists the account API operations this credential may call, \`tools/call\` calls one through its procedure (an unknown tool is a JSON-RPC error \`-32602\`). Takes account API keys with \`mcp.read\` and the access tokens of sign-in issued for this URL (OAuth 2.1). 401 and 403 carry the Bearer challenge (\`resource_metadata\`, and for 403 \`insufficient_scope\` with the scope the call needs plus what the credential holds) and the contract's body; every other refusal is a JSON-RPC error whose \`data.error\` is the contract's code.`,
      },
      example: { build: initializeExample },
    })
    .input(JsonRpcMessage)
    .output(JsonRpcAnswer)
    .mutation(
      async ({ ctx, input }) =>
        (await ctx.mcp.post({ ...ctx, http: httpOf(ctx) }, input as never)) as z.infer<typeof JsonRpcAnswer>,
    ),

  end: accountProcedure
    .meta({
      ability: "mcp.read",
      mcp: { defaultScopes: MCP_DEFAULT_SCOPES, sessions: true },
      exactPath: true,
      successStatus: 204,
      errors: [...TRANSPORT_ERRORS, ...SESSION_ERRORS],
      openapi: {
        method: "DELETE",
        path: MCP_PATH,
        tags,
        summary: "End an MCP session",
        description:
          "Ends the session named by `Mcp-Session-Id`, if it is this credential's (for a sign-in token, the connected app's); 404 (JSON-RPC `-32001`) when it is unknown, ended or another's.",
      },
      example: {
        // A key of its own (scoped to the product, where the account's slots are free), with a session it opened: a
        // session is ended by its owner only.
        build: async ({ db, accountId, productId }) => {
          const { key, record } = await createApiKey(
            db,
            { accountId, productId, client: "matrix-mcp", abilities: ["mcp.read"] },
            "shelf",
          );
          const sessionId = await openMcpSession(db, {
            accountId,
            credential: `key:${record.id}`,
            protocolVersion: LATEST_PROTOCOL_VERSION,
            clientName: "matrix",
            clientVersion: "1",
          });
          return { key, headers: { "mcp-session-id": sessionId } };
        },
      },
    })
    .input(z.object({}))
    .output(z.void())
    .mutation(({ ctx }) => ctx.mcp.end({ ...ctx, http: httpOf(ctx) })),
});

function httpOf(ctx: { http?: { header: (name: string) => string | undefined; requestId: string } }) {
  if (!ctx.http) throw new Error("The MCP endpoint is served over HTTP only (ctx.http).");
  return ctx.http;
}
