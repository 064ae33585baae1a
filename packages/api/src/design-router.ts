import { designCollectRouter } from "./routers/design-collect/router";
import { designDocsRouter } from "./routers/design-docs/router";
import { designGalleryRouter } from "./routers/design-gallery/router";
import { designManifestRouter } from "./routers/design-manifest/router";
import { designMcpRouter } from "./routers/design-mcp/router";
import { designRoutes } from "./trpc";

/**
 * The design host's API: the agent API, whose every route declares the role a design agent token needs
 * (`meta.role`), its MCP endpoint (`/mcp`), and the gallery, open to anyone (`ability: "public"`, contract scheme
 * `design_gallery`). Its own module, apart from the edge that serves it (design-api.ts): the design MCP's tools read
 * their procedures' output schemas from it.
 */
export const designRouter = designRoutes({
  docs: designDocsRouter,
  collect: designCollectRouter,
  manifest: designManifestRouter,
  gallery: designGalleryRouter,
  mcp: designMcpRouter,
});

export type DesignRouter = typeof designRouter;
