import { collectApps } from "@shelf/db/enums";
import { z } from "zod";

/**
 * What a collector may say of a page in a capture's `meta` (JSON text). Every field is optional and unknown fields are
 * kept as sent, so an older or simpler agent is never refused for what it leaves out; the replay reads what is there
 * and derives the rest (the app from the URL, the page from its path). Published as a JSON Schema on the design host.
 */
export const CaptureMeta = z
  .looseObject({
    /** Which of the company's apps the page belongs to. */
    app: z.enum(collectApps).optional(),
    /** The page's stable identity within its app (a route such as `/library` or `/products/[slug]`). */
    page: z.string().min(1).max(200).optional(),
    title: z.string().max(200).optional(),
    /** What kind of page it is (`sign-in`, `list`, `detail`, `settings`, `form`, `home`, ...). */
    page_type: z.string().min(1).max(64).optional(),
    /** The flow the page is a step of (`sign-in`, `buy`, ...) and its position in it, from 1. */
    flow: z.string().min(1).max(64).optional(),
    flow_step: z.int().min(1).max(1000).optional(),
    /**
     * The page was reached by walking the app from its start in this capture's signed-in state, viewport and
     * language: the run's walk there is its `walk` captures in upload order, and replaces the gallery's walk there.
     */
    walk: z.boolean().optional(),
    /** Design patterns the page shows (`empty-state`, `pagination`, `data-table`, ...). */
    patterns: z.array(z.string().min(1).max(64)).max(50).optional(),
    /** UI elements on the page (`button`, `text-field`, `dialog`, `tab`, ...). */
    elements: z.array(z.string().min(1).max(64)).max(100).optional(),
    /** The product's own named components seen on the page. */
    components: z.array(z.string().min(1).max(64)).max(100).optional(),
    /** The color scheme the page was captured in. */
    mode: z.enum(["light", "dark"]).optional(),
  })
  .meta({ id: "CaptureMeta", title: "Capture metadata" });

export type CaptureMeta = z.infer<typeof CaptureMeta>;

/** Where a run's uploaded bytes are kept: the artifact store's content types for each kind. */
export const COLLECT_CONTENT_TYPES = {
  css: "text/css",
  js: "text/javascript",
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  html: "text/html; charset=utf-8",
} as const;
