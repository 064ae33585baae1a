import type { DesignRole } from "@shelf/db/enums";
import type { AnyProcedure } from "@trpc/server";
import { z } from "zod";
import { designRouter } from "../design-router";
import { ReadDocumentInput, ReviewInput, SubmitVersionInput, WriteVersionInput } from "../routers/design-docs/schemas";
import {
  GALLERY_GRID,
  IdInput,
  MAX_FILTER_NAMES,
  ScreensInput,
  TaxonomyInput,
} from "../routers/design-gallery/schemas";
import { PageInput } from "../schemas/design-page";
import { GalleryScreenCard } from "../schemas/gallery-screens";

/**
 * A tool of the design MCP: one call of a design API procedure (the same one its REST route calls, so its checks
 * run again), with the role a token needs, its arguments' and answer's schemas, and what it does to the host.
 */
export type DesignTool = {
  name: string;
  title: string;
  description: string;
  role: DesignRole;
  /** The procedure's path in the design router (`gallery.screens`). */
  procedure: string;
  input: z.ZodType;
  /**
   * The answer's shape (`structuredContent`); the procedure's own output unless the tool reshapes it. Null for a tool
   * that answers what another tool's schema says (its description names it): the tools list stays small.
   */
  output: z.ZodType | null;
  /** The procedure's input from the tool's arguments (as they are, unless the tool pages or renames). */
  toInput?: (args: Record<string, unknown>) => unknown;
  toOutput?: (answer: unknown, args: Record<string, unknown>) => unknown;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: false };
};

const procedures = designRouter._def.procedures as unknown as Record<string, AnyProcedure>;
/** A procedure's output schema; a tool naming a procedure the router lacks fails when the module loads. */
function outputOf(path: string): z.ZodType {
  const output = (procedures[path]?._def as { output?: z.ZodType } | undefined)?.output;
  if (!output) throw new Error(`The design router has no procedure ${path} with an output schema.`);
  return output;
}

const READ = { readOnlyHint: true, openWorldHint: false } as const;

/** A list filter of the tool: names in an array (REST's repeated parameters and comma lists do not apply). */
const names = (what: string) =>
  z
    .array(z.string().max(100))
    .max(MAX_FILTER_NAMES)
    .meta({ description: `${what}: every one must be on the screen.` })
    .optional();

const SearchArguments = ScreensInput.omit({ cols: true, page: true, facets: true }).extend({
  patterns: names("Pattern slugs"),
  components: names("Component slugs"),
  elements: names("Element slugs"),
  fonts: names("Font families, lowercase"),
  colors: names("Colors as `#rrggbb` or `#rrggbbaa`"),
  limit: ScreensInput.shape.limit.meta({ description: "Screens a page: 1 to 100, default 24." }),
  cursor: ScreensInput.shape.cursor.meta({
    description: "`next_cursor` of the answer before. It carries the query: send it alone or with the same filters.",
  }),
});

const SearchAnswer = z.object({
  items: z.array(GalleryScreenCard),
  total: z.number().int().meta({ description: "Screens matching the filters." }),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: "Give it back as `cursor` for the next page; null on the last." }),
});

const SEARCH_DESCRIPTION =
  "The gallery's current screens under the filters of GET /api/v1/screens (the same ids in the same order), `limit` a page (default 24, at most 100), the next page by `cursor` (the `next_cursor` before: it carries the query, so send it alone or with the same filters): page type (`kind`), `patterns`, `components`, `elements`, `fonts` and `colors` (every one named must be on the screen), `viewport`, `lang`, `mode`, `platform`, `app`, and `q` (words in Korean or English, each part of a word of the screen's text, titles, app or tags). Images come as URLs. A name the gallery does not know is an error naming the field; `get_taxonomy` lists the names.";

export const designTools: DesignTool[] = [
  {
    name: "search_screens",
    title: "Search the gallery's screens",
    description: SEARCH_DESCRIPTION,
    role: "read",
    procedure: "gallery.screens",
    input: SearchArguments,
    output: SearchAnswer,
    // Always by cursor: `limit` screens at a time, each next page after the last one shown, under the same query.
    toInput: (args) => ({ ...args, limit: args.limit ?? GALLERY_GRID.minPageScreens, facets: false }),
    toOutput: (answer) => {
      const { items, total, next_cursor } = answer as { items: unknown[]; total: number; next_cursor: string | null };
      return { items, total, next_cursor };
    },
    annotations: READ,
  },
  {
    name: "get_screen",
    title: "A screen with its variants and evidence",
    description:
      "One screen by id: its variants (viewport, language, signed-in state, color scheme) with image URLs and sizes, its page type, patterns, elements, components, colors and fonts, where each image comes from (run, capture key, final URL, HTTP status, builds, time), and its page's history.",
    role: "read",
    procedure: "gallery.screen",
    input: IdInput,
    output: outputOf("gallery.screen"),
    annotations: READ,
  },
  {
    name: "get_app",
    title: "An app with its flows",
    description:
      "One app by id: its fonts and colors, its flows (ordered steps, each its page's current screen) and its screens.",
    role: "read",
    procedure: "gallery.app",
    input: IdInput,
    output: outputOf("gallery.app"),
    annotations: READ,
  },
  {
    name: "list_patterns",
    title: "The gallery's patterns",
    description:
      "Every pattern current screens show, with a definition where the gallery has one, and how many show it.",
    role: "read",
    procedure: "gallery.patterns",
    input: z.object({}),
    output: outputOf("gallery.patterns"),
    annotations: READ,
  },
  {
    name: "get_taxonomy",
    title: "One kind of the gallery's taxonomy",
    description:
      "The terms of one kind (`page_type`, `pattern`, `element`, `component`, `font`, `color`) with how many current screens have each, most first: the names search_screens takes.",
    role: "read",
    procedure: "gallery.taxonomy",
    input: TaxonomyInput.required(),
    output: outputOf("gallery.taxonomy"),
    annotations: READ,
  },
  {
    name: "get_manifest",
    title: "The design documents and the agent skill package",
    description:
      "The design documents (slug, title, current and latest version), paged by `cursor`, and the agent skill package (its archive's URL, size and sha256) that teaches the collect and document workflows.",
    role: "read",
    procedure: "manifest.manifest",
    input: PageInput,
    output: outputOf("manifest.manifest"),
    annotations: READ,
  },
  {
    name: "read_document",
    title: "Read a design document",
    description:
      "A document's current version (the newest approved one), or the `version` named, with its body (Markdown) and the document's `latest_version` and `pending_versions`. Draft on `latest_version`.",
    role: "read",
    procedure: "docs.read",
    input: ReadDocumentInput,
    output: outputOf("docs.read"),
    annotations: READ,
  },
  {
    name: "list_versions",
    title: "A design document's versions",
    description:
      "Its versions, newest first, with their status, author and verdict; paged by `cursor` (`next_cursor`).",
    role: "read",
    procedure: "docs.versions",
    input: PageInput.extend({ slug: ReadDocumentInput.shape.slug }),
    output: outputOf("docs.versions"),
    annotations: READ,
  },
  {
    name: "draft_version",
    title: "Draft a document's next version",
    description:
      "Writes draft version N+1 on `base_version` N (0 for a new document). If `base_version` is not the newest, nothing is written and the error names `latest_version` and its author: read that version, rebase, and draft again on it. Answers the document and the version, as read_document does (without the body).",
    role: "write",
    procedure: "docs.write",
    input: WriteVersionInput,
    output: null,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: "submit_version",
    title: "Submit a draft for review",
    description:
      "Puts a draft up for review. Submitting again, or a reviewed version, is an error. Answers the document and the version, as read_document does (without the body).",
    role: "write",
    procedure: "docs.submit",
    input: SubmitVersionInput,
    output: null,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: "list_pending_reviews",
    title: "Versions waiting for review",
    description: "Submitted versions waiting for a verdict, oldest first; paged by `cursor` (`next_cursor`).",
    role: "review",
    procedure: "docs.pending",
    input: PageInput,
    output: outputOf("docs.pending"),
    annotations: READ,
  },
  {
    name: "review_version",
    title: "Review a submitted version",
    description:
      "Records one verdict (`approved`, `changes_requested` or `rejected`, with a `reason`) on a submitted version; an approved one becomes the document's current version unless a newer one is. An agent (every token of one name) never reviews a version it wrote. Answers the document and the version, as read_document does (without the body).",
    role: "review",
    procedure: "docs.review",
    input: ReviewInput,
    output: null,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
];
