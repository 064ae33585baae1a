import { type ApiEdge, createEdge, type HostEdgeOptions } from "./api-edge";

import { type CredentialPolicy, designTokenResolver } from "./auth/credential";
import type { DesignServices } from "./context";
import type { Delivery } from "./delivery";
import { createDesignMcp } from "./design-mcp/service";
import { designRouter } from "./design-router";
import { designMcpCredentials, mcpProtocol } from "./protocols/mcp";
import { DEFAULT_COLLECT_LEASE_SECONDS } from "./routers/design-collect/schemas";
import { DESIGN_OPENAPI_PATH } from "./routers/design-manifest/router";

export { type DesignRouter, designRouter } from "./design-router";

/** The design host takes design agent tokens only: account API keys and OAuth tokens are unknown there (401). */
export const designApiPolicy: CredentialPolicy = {
  resolvers: [designTokenResolver],
  accepts: new Set(["design_token"]),
};

export const DESIGN_API_DOCUMENT = {
  path: DESIGN_OPENAPI_PATH,
  info: {
    title: "Shelf design host: agent API and gallery",
    version: "1",
    description:
      "The design host's agent API: collect runs (one open at a time under the collection lock, a lease renewed by each upload; assets and captures uploaded as multipart forms; submitted runs replayed into the gallery), and design documents with draft versions on a base version, submission and review. Send a design agent token (from `design-token:create`) as `Authorization: Bearer <token>`; each route names the role it needs (`collect`, `read`, `write`, `review`). Lists page with `cursor` and `limit`, answering `next_cursor`. `GET /api/agent/manifest` lists the documents and the agent skill package (also at `/.well-known/agent-skills/index.json`) that teaches these workflows. The gallery (`/api/v1/...`: screens with filters and facets, a screen with its variants and evidence, apps with their flows, patterns, the taxonomy, images) needs no token (scheme `design_gallery`); its answers may be cached for a minute and revalidated by ETag, its images for good.",
  },
};

/**
 * The design host's agent API over HTTP, design agent tokens only, and its MCP endpoint (`/mcp`), served by the MCP
 * protocol with the design host's credentials and challenge.
 */
export function createDesignApiEdge(options: DesignEdgeOptions): ApiEdge {
  const { allowedHosts = [], delivery, collectLeaseSeconds = DEFAULT_COLLECT_LEASE_SECONDS, ...edgeOptions } = options;
  const mcp = createDesignMcp({ router: designRouter, dbDeadlineMs: options.dbDeadlineMs, log: options.log });
  return createEdge<DesignServices>({
    ...edgeOptions,
    router: designRouter,
    credentials: designApiPolicy,
    protocols: [mcpProtocol(options.baseUrl, allowedHosts, designMcpCredentials(designApiPolicy))],
    document: DESIGN_API_DOCUMENT,
    services: { delivery, mcp, collectLeaseSeconds },
  });
}

/** What the design API's edge is made with: the host's edge options, its artifact store, its collection lease. */
export type DesignEdgeOptions = HostEdgeOptions & {
  delivery: Delivery;
  /** How long the collection lock lasts without an upload (`SHELF_COLLECT_LEASE_SECONDS`); 600 seconds by default. */
  collectLeaseSeconds?: number;
};
