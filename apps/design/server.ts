import { createDesignApiEdge, scheduleReplayResume } from "@shelf/api";
import { seedDemoGallery } from "@shelf/demo";
import { pagesRuntimeOf } from "@shelf/web-kit/runtime";
import { startNextApp } from "@shelf/web-kit/server";
import { readDesignConfig } from "./src/env";
import { setRuntime } from "./src/runtime";

/**
 * The design app's process: the shared start-up (`startNextApp`) with what is the design host's own: the design agent API on
 * `/api` and the design MCP on `/mcp` (design agent tokens only), and the pages' runtime.
 */
startNextApp(import.meta.url, readDesignConfig, (config) => {
  const { settings: design, api } = config;
  return {
    name: "design",
    title: "The design host",
    port: design.DESIGN_PORT,
    publicUrl: api.SHELF_DESIGN_URL,
    prepare: async (host) => {
      // The demo's gallery: a run the reference collect agent saved, uploaded and replayed like a collector's, once.
      if (!design.SHELF_DEMO) return;
      const gallery = await seedDemoGallery(host.db, host.files.store);
      if (gallery.runId === null)
        host.log.warn({ reason: gallery.reason }, "the demo gallery waits for the next start");
      else if (gallery.loaded) host.log.info({ run: gallery.runId }, "the demo gallery was replayed");
    },
    mount: async (host) => {
      setRuntime({
        config,
        ...pagesRuntimeOf(host),
      });
      // A replay whose process stopped before it ended is taken up again by whichever instance looks first.
      const replays = scheduleReplayResume(host.db, host.files.store, { intervalMs: 60_000, log: host.log });
      // One edge: the agent API, the gallery API and the design MCP (`/mcp`) are routes of the design router.
      return {
        edges: [createDesignApiEdge({ ...host.edge, collectLeaseSeconds: api.SHELF_COLLECT_LEASE_SECONDS })],
        close: () => replays.stop(),
      };
    },
  };
});
