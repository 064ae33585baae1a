import { createEdge, type EdgeOptions } from "./api-edge";
import { type CredentialPolicy, designTokenResolver } from "./auth/credential";
import type { Edge } from "./edge/pipeline";
import { designCollectRouter } from "./routers/design-collect/router";
import { designDocsRouter } from "./routers/design-docs/router";
import { designGalleryRouter } from "./routers/design-gallery/router";
import { DESIGN_OPENAPI_PATH, designManifestRouter } from "./routers/design-manifest/router";
import { router } from "./trpc";

/**
 * The design host's API: the agent API, whose every route declares the role a design agent token needs
 * (`meta.role`), and the gallery, open to anyone (`ability: "public"`, contract scheme `design_gallery`).
 */
export const designRouter = router({
  docs: designDocsRouter,
  collect: designCollectRouter,
  manifest: designManifestRouter,
  gallery: designGalleryRouter,
});

export type DesignRouter = typeof designRouter;

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

/** The design host's agent API over HTTP, design agent tokens only. */
export function createDesignApiEdge(options: Omit<EdgeOptions, "router" | "credentials" | "document">): Edge {
  return createEdge({ ...options, router: designRouter, credentials: designApiPolicy, document: DESIGN_API_DOCUMENT });
}
