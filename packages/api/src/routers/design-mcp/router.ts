import type { z } from "zod";
import { initializeExample, JsonRpcAnswer, JsonRpcMessage, MCP_ACCEPT, TRANSPORT_ERRORS } from "../../mcp/messages";
import { designProcedure } from "../../procedures";
import { designRoutes } from "../../trpc";

export const DESIGN_MCP_PATH = "/mcp";

/**
 * The design MCP (contract 5.12): stateless Streamable HTTP with one JSON answer per request at `/mcp`, declared here
 * like every route of the design host so that the edge runs its pipeline (Host and Origin, design token and role,
 * rate limit, body, database deadline, headers, the error table) and the document, the design security matrix and
 * the fuzz test know it; the serving is `design-mcp/service.ts` on the MCP kit (`mcp/endpoint.ts`).
 */
export const designMcpRouter = designRoutes({
  message: designProcedure
    .meta({
      role: "read",
      mcp: {},
      exactPath: true,
      alternateSuccess: { status: 202, description: "A notification or a response was accepted (no body)" },
      errors: [...TRANSPORT_ERRORS],
      openapi: {
        method: "POST",
        path: DESIGN_MCP_PATH,
        tags: ["mcp"],
        summary: "The design MCP: one JSON-RPC message (stateless Streamable HTTP, JSON answers)",
        description: `One JSON-RPC 2.0 message per request (a batch is refused, 400 \`-32600\`), with \`Accept: ${MCP_ACCEPT}\`; the answer is JSON, never a stream, and no session is kept (no \`Mcp-Session-Id\`; GET and DELETE are 405). \`tools/list\` lists the gallery's and the design documents' tools this token's roles allow, each with its input and output schema; \`tools/call\` calls one through the procedure its REST route calls (an unknown tool is a JSON-RPC error \`-32602\`, a tool whose role the token lacks \`-32600\` naming it). Takes design agent tokens with the \`read\` role. 401 carries the Bearer challenge of realm "Shelf design MCP" and the contract's body, as does 403; every other refusal is a JSON-RPC error whose \`data.error\` is the contract's code.`,
      },
      designExample: { build: initializeExample },
    })
    .input(JsonRpcMessage)
    .output(JsonRpcAnswer)
    .mutation(async ({ ctx, input }) => (await ctx.mcp.post(ctx, input as never)) as z.infer<typeof JsonRpcAnswer>),
});
