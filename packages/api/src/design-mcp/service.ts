import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "@shelf/server/log";
import type { AnyRouter } from "@trpc/server";
import type { McpEndpoint } from "../context";
import { createMcpEndpoint } from "../mcp/endpoint";
import { rpcFailure } from "../mcp/http";
import { definedTool } from "../mcp/tools";
import { DESIGN_MCP_PATH } from "../routers/design-mcp/router";
import { designTools } from "./tools";

/**
 * The design MCP (`/mcp` on the design host, role `read`): stateless, one JSON answer per request, design agent
 * tokens only. Its tools are the design API's reads and writes (design-mcp/tools.ts), each calling the procedure its
 * REST route calls; a token sees the tools its roles allow, and a call of one it lacks is a JSON-RPC error naming
 * the role.
 */
export function createDesignMcp(options: { router: AnyRouter; dbDeadlineMs?: number; log: Logger }): McpEndpoint {
  return createMcpEndpoint({
    path: DESIGN_MCP_PATH,
    router: options.router,
    tools: designTools.map(({ role, description, ...tool }) =>
      definedTool({ ...tool, needs: role, description: `${description} Needs the ${role} role.` }),
    ),
    server: { name: "shelf-design", title: "Shelf design host", version: "1.0.0" },
    capabilities: { tools: { listChanged: false } },
    instructions:
      "The design host's gallery (screens of the product's own apps, per viewport, language and signed-in state, with their page types, patterns, colors and fonts) and its design documents (versions drafted on a base, submitted, reviewed). Search with search_screens; get_taxonomy lists the names its filters take. Read a document before drafting on its latest_version.",
    holds: (caller, role) => "roles" in caller && caller.roles.has(role as never),
    refuse: (tool) =>
      rpcFailure(
        ErrorCode.InvalidRequest,
        `The ${tool.name} tool needs the ${tool.needs} role, which this token lacks.`,
        {
          required_role: tool.needs,
        },
      ),
    dbDeadlineMs: options.dbDeadlineMs,
    log: options.log,
  });
}
