import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type {
  CaptureImageType,
  CollectLang,
  CollectViewport,
  ColorMode,
  GalleryFlowKind,
  GalleryPlatform,
  GalleryStatus,
  GalleryTermKind,
} from "../enums";
import { collectCaptures, collectRuns } from "./collect";

/*
 * The design gallery: what replaying collect runs made of their captures (packages/api/src/design-gallery/replay.ts
 * says how). Screens and flows are rows of the run that made them and are never edited afterwards except to be
 * retired: a newer run's screen of the same page replaces the older one, which stays readable by id as history.
 *
 * What the gallery shows now is `status = 'current'`: at most one current screen per app and page, and one current
 * flow per app, kind and slug (both enforced by partial unique indexes). The ids are kept when a run is replayed
 * again, so links to screens stay valid.
 *
 * How the gallery API's screen filters read it (every list starts from current screens):
 * - platform: gallery_apps.platform; app: gallery_screens.app_id (gallery_screens_current_page_key).
 * - kind: gallery_screens.page_type (gallery_screens_current_kind).
 * - q: search_grams holds every query word's pieces (gallery_screens_search, GIN), then strpos(search_text, word)
 *   for each word (packages/api/src/design-gallery/search.ts says why pieces, not pg_trgm).
 * - viewport, lang, mode: variant_mask holds a bit of a state with them (one variant has them all together); the
 *   thumbnail is the first matching variant in viewport, language, signed-in, mode order (gallery_screen_variants_key).
 * - patterns, components (and elements, fonts, colors): EXISTS a gallery_screen_terms row whose term has that kind and
 *   slug (gallery_terms_kind_slug_key, then gallery_screen_terms_term).
 * - sort newest: captured_at DESC, id DESC (gallery_screens_current_newest); name: coalesce(title, page) in
 *   code-point order (COLLATE "C"), then id (gallery_screens_current_name).
 * - facets: every filter's values with the screens each would leave, in one statement over the current screens'
 *   facts (gallery_screens_current_facts: id, app, page type, variant mask) and terms (gallery_screen_terms); with no
 *   filter at all they are gallery_counts, which each replay rewrites (and the terms of a set holding most screens
 *   are counted over the others and taken from those counts).
 * - taxonomy: terms with the count of current screens linking them (zero-count terms left out), page types by
 *   page_type (what the kind filter finds): gallery_counts. An app's fonts and colors are gallery_app_terms. History of a page: its screens by (app_id, page) in run order
 *   (gallery_screens_history), or replaced_by_id from one to the next.
 */

const STATUS_CHECK = sql`IN ('current', 'replaced', 'removed')`;

/**
 * What holds of every row that goes through the gallery's lifecycle (a screen, a flow): a known status; retired by a
 * run exactly when no longer current; a successor only when replaced; a content hash in lowercase hex.
 */
function lifecycleChecks(
  table: string,
  t: { status: AnyPgColumn; retiredByRunId: AnyPgColumn; replacedById: AnyPgColumn; contentSha256: AnyPgColumn },
) {
  return [
    check(`${table}_status`, sql`${t.status} ${STATUS_CHECK}`),
    check(`${table}_retired`, sql`(${t.status} = 'current') = (${t.retiredByRunId} IS NULL)`),
    check(`${table}_replaced_by`, sql`${t.replacedById} IS NULL OR ${t.status} = 'replaced'`),
    check(`${table}_content_sha256`, sql`${t.contentSha256} ~ '^[0-9a-f]{64}$'`),
  ];
}

/** The collector's run a gallery row came from (runs the gallery names are never deleted). */
const fromRun = () =>
  integer()
    .notNull()
    .references(() => collectRuns.id);

/** The app a screen or flow is of. */
const ofGalleryApp = () =>
  integer()
    .notNull()
    .references(() => galleryApps.id);

/** One of the company's apps as collected: the collector's `meta.app`, else a name derived from the page's URL. */
export const galleryApps = pgTable(
  "gallery_apps",
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    slug: text().notNull(),
    platform: text().$type<GalleryPlatform>().notNull().default("web"),
    /** Scheme, host and port of the app's pages in the newest run that captured it. */
    origin: text().notNull(),
    firstRunId: fromRun(),
    /** The newest run whose captures made screens of it: its fonts and colors (gallery_app_terms) are that run's. */
    lastRunId: fromRun(),
  },
  (t) => [
    uniqueIndex("gallery_apps_slug_key").on(t.slug),
    check("gallery_apps_platform", sql`${t.platform} IN ('web')`),
  ],
);

/**
 * A page of an app as one run saw it: its variants (viewport, language, signed-in state, color scheme) grouped.
 * `replaced_by_id` points at the newer run's screen of the same page that replaced it.
 */
export const galleryScreens = pgTable(
  "gallery_screens",
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    appId: ofGalleryApp(),
    /** The run that made this screen. */
    runId: fromRun(),
    /** The page's identity in its app: `meta.page`, else the URL's path with ids normalised (`/products/[id]`). */
    page: text().notNull(),
    /** The first variant's title (variants in viewport, language, signed-in and mode order). */
    title: text(),
    /** The page type most of its variants' `meta.page_type` named (slug of a `page_type` term); the `kind` filter. */
    pageType: text(),
    status: text().$type<GalleryStatus>().notNull().default("current"),
    /** The screen that replaced it; null while current, when removed, or when its replacement was deleted. */
    replacedById: integer().references((): AnyPgColumn => galleryScreens.id, { onDelete: "set null" }),
    /** The run that replaced or removed it. */
    retiredByRunId: integer().references(() => collectRuns.id),
    /** When its newest variant was captured: the gallery's "newest" order. */
    capturedAt: timestamp({ withTimezone: true }).notNull(),
    /** SHA-256 over what a visitor sees (variants' images, titles, terms): equal means the page did not change. */
    contentSha256: text().notNull(),
    /**
     * The words the `q` filter searches, normalized, sorted and space-separated: app, page, titles, the visible text
     * of its variants' HTML, page type, patterns, elements, components.
     */
    searchText: text().notNull(),
    /** The one- and two-character pieces of those words, for the GIN index the `q` filter starts from. */
    searchGrams: text().array().notNull().default(sql`'{}'::text[]`),
    /**
     * The states it has variants in, a bit each (viewport x language x light, dark or unsaid mode; see
     * packages/api/src/design-gallery/variant-mask.ts): the viewport, lang and mode filters and their facets.
     */
    variantMask: integer().notNull().default(0),
  },
  (t) => [
    uniqueIndex("gallery_screens_run_page_key").on(t.runId, t.appId, t.page),
    uniqueIndex("gallery_screens_current_page_key").on(t.appId, t.page).where(sql`${t.status} = 'current'`),
    index("gallery_screens_current_newest").on(t.capturedAt, t.id).where(sql`${t.status} = 'current'`),
    index("gallery_screens_current_kind").on(t.pageType, t.id).where(sql`${t.status} = 'current'`),
    // What the facets read of every current screen, without its wide search columns: index-only, in id order.
    index("gallery_screens_current_facts")
      .on(t.id, t.appId, t.pageType, t.variantMask)
      .where(sql`${t.status} = 'current'`),
    index("gallery_screens_current_name")
      .on(sql`(coalesce(${t.title}, ${t.page}) COLLATE "C")`, t.id)
      .where(sql`${t.status} = 'current'`),
    index("gallery_screens_search").using("gin", t.searchGrams).where(sql`${t.status} = 'current'`),
    index("gallery_screens_history").on(t.appId, t.page, t.runId),
    index("gallery_screens_replaced_by").on(t.replacedById),
    ...lifecycleChecks("gallery_screens", t),
  ],
);

/**
 * One capture shown as a screen: the page at one viewport, language, signed-in state and color scheme. A variant the
 * newer run did not capture again (nor find gone: HTTP 404 or 410) is carried into the newer screen: it keeps pointing
 * at its own, older capture (`run_id` is the capture's run).
 */
export const galleryScreenVariants = pgTable(
  "gallery_screen_variants",
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    screenId: integer()
      .notNull()
      .references(() => galleryScreens.id, { onDelete: "cascade" }),
    captureId: integer()
      .notNull()
      .references(() => collectCaptures.id),
    /** The capture's run: the screen's own run, or an older one for a carried variant. */
    runId: fromRun(),
    viewport: text().$type<CollectViewport>().notNull(),
    lang: text().$type<CollectLang>().notNull(),
    auth: boolean().notNull(),
    /** `meta.mode`; null when the collector did not say. */
    mode: text().$type<ColorMode>(),
    title: text(),
    url: text().notNull(),
    imageKey: text().notNull(),
    imageType: text().$type<CaptureImageType>().notNull(),
    imageSha256: text().notNull(),
    imageSize: integer().notNull(),
    imageWidth: integer().notNull(),
    imageHeight: integer().notNull(),
    htmlKey: text(),
    htmlSize: integer(),
    capturedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    // A variant whose mode was not said is one variant, not as many as were inserted.
    unique("gallery_screen_variants_key").on(t.screenId, t.viewport, t.lang, t.auth, t.mode).nullsNotDistinct(),
    index("gallery_screen_variants_filter").on(t.viewport, t.lang, t.mode, t.screenId),
    index("gallery_screen_variants_capture").on(t.captureId),
    check("gallery_screen_variants_viewport", sql`${t.viewport} IN ('desktop', 'mobile')`),
    check("gallery_screen_variants_lang", sql`${t.lang} IN ('ko', 'en')`),
    check("gallery_screen_variants_mode", sql`${t.mode} IN ('light', 'dark')`),
  ],
);

/**
 * The taxonomy's vocabulary: page types, patterns, elements and components named by the captures' `meta`, and the
 * fonts and colors read from the CSS. Terms are never deleted; a term no current screen links to counts zero.
 */
export const galleryTerms = pgTable(
  "gallery_terms",
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    kind: text().$type<GalleryTermKind>().notNull(),
    /** The lookup key: lowercase, words joined by `-` for meta terms; a family name in lowercase; `#rrggbb[aa]`. */
    slug: text().notNull(),
    /** As first written (the alphabetically first spelling a replay saw). */
    label: text().notNull(),
    /** A font that is a generic family (`sans-serif`, `system-ui`, `ui-monospace`, ...) rather than a named one. */
    generic: boolean().notNull().default(false),
  },
  (t) => [
    uniqueIndex("gallery_terms_kind_slug_key").on(t.kind, t.slug),
    check("gallery_terms_kind", sql`${t.kind} IN ('page_type', 'pattern', 'element', 'component', 'font', 'color')`),
    check("gallery_terms_color", sql`${t.kind} <> 'color' OR ${t.slug} ~ '^#[0-9a-f]{6}([0-9a-f]{2})?$'`),
    check("gallery_terms_generic", sql`NOT ${t.generic} OR ${t.kind} = 'font'`),
  ],
);

/** A term its holder (a screen, an app) uses, and how many times (`uses`, positive). */
const termUses = () => ({
  termId: integer()
    .notNull()
    .references(() => galleryTerms.id),
  uses: integer().notNull(),
});

/**
 * A screen's terms. `uses`: for meta terms, how many of its variants named the term; for fonts and colors, how many
 * declarations of the CSS its captures named use it (see design-gallery/styles.ts).
 */
export const galleryScreenTerms = pgTable(
  "gallery_screen_terms",
  {
    screenId: integer()
      .notNull()
      .references(() => galleryScreens.id, { onDelete: "cascade" }),
    ...termUses(),
  },
  (t) => [
    primaryKey({ columns: [t.screenId, t.termId] }),
    index("gallery_screen_terms_term").on(t.termId, t.screenId),
    check("gallery_screen_terms_uses", sql`${t.uses} > 0`),
  ],
);

/** An app's fonts and colors: those of the CSS the newest run that captured it read (`gallery_apps.last_run_id`). */
export const galleryAppTerms = pgTable(
  "gallery_app_terms",
  {
    appId: integer()
      .notNull()
      .references(() => galleryApps.id, { onDelete: "cascade" }),
    ...termUses(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.termId] }),
    index("gallery_app_terms_term").on(t.termId),
    check("gallery_app_terms_uses", sql`${t.uses} > 0`),
  ],
);

/**
 * A sequence of an app's pages as one run recorded it: a flow the collector declared (`meta.flow`, `flow_step`), or
 * the order it first reached the app's pages in one signed-in state, viewport and language (`walk`, slug
 * `signed-out-desktop-en`, ..., from its captures that say `meta.walk`).
 */
export const galleryFlows = pgTable(
  "gallery_flows",
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    appId: ofGalleryApp(),
    runId: fromRun(),
    kind: text().$type<GalleryFlowKind>().notNull(),
    slug: text().notNull(),
    /** `meta.flow` as written, for a declared flow; null for a walk. */
    name: text(),
    /** The signed-in state of a walk; null for a declared flow. */
    auth: boolean(),
    /** The viewport and language a walk was made in; null for a declared flow. */
    viewport: text().$type<CollectViewport>(),
    lang: text().$type<CollectLang>(),
    status: text().$type<GalleryStatus>().notNull().default("current"),
    replacedById: integer().references((): AnyPgColumn => galleryFlows.id, { onDelete: "set null" }),
    retiredByRunId: integer().references(() => collectRuns.id),
    /** SHA-256 over its name and its steps' pages: equal means the flow did not change. */
    contentSha256: text().notNull(),
  },
  (t) => [
    uniqueIndex("gallery_flows_run_key").on(t.runId, t.appId, t.kind, t.slug),
    uniqueIndex("gallery_flows_current_key").on(t.appId, t.kind, t.slug).where(sql`${t.status} = 'current'`),
    index("gallery_flows_replaced_by").on(t.replacedById),
    check("gallery_flows_kind", sql`${t.kind} IN ('declared', 'walk')`),
    check("gallery_flows_walk", sql`(${t.kind} = 'walk') = (${t.auth} IS NOT NULL)`),
    check(
      "gallery_flows_walk_state",
      sql`(${t.kind} = 'walk') = (${t.viewport} IS NOT NULL) AND (${t.viewport} IS NULL) = (${t.lang} IS NULL)`,
    ),
    ...lifecycleChecks("gallery_flows", t),
  ],
);

/**
 * A flow's pages in order: each step names the screen that was current for its page when the flow was recorded.
 * To show a flow as it is now, take each step's page's current screen (same app and page, status current).
 */
export const galleryFlowSteps = pgTable(
  "gallery_flow_steps",
  {
    flowId: integer()
      .notNull()
      .references(() => galleryFlows.id, { onDelete: "cascade" }),
    position: integer().notNull(),
    screenId: integer()
      .notNull()
      .references(() => galleryScreens.id),
    /** The collector's `meta.flow_step`, when it gave one. */
    flowStep: integer(),
  },
  (t) => [
    primaryKey({ columns: [t.flowId, t.position] }),
    index("gallery_flow_steps_screen").on(t.screenId),
    check("gallery_flow_steps_position", sql`${t.position} >= 1`),
  ],
);

/**
 * The gallery's facets with no filter: for each facet (`platform`, `app`, `kind`, `viewport`, `lang`, `mode`,
 * `patterns`, `components`, `elements`, `fonts`, `colors`) the values current screens have, with how many, and the
 * row (`total`, '') of all current screens. Rewritten by each replay in its transaction, so it always says what
 * the gallery holds; the unfiltered grid, the taxonomy and the patterns read it instead of counting 100,000 screens.
 */
export const galleryCounts = pgTable(
  "gallery_counts",
  {
    facet: text().notNull(),
    value: text().notNull(),
    label: text().notNull(),
    count: integer().notNull(),
    /** The term (for the term facets) or app counted. */
    ref: integer(),
  },
  (t) => [primaryKey({ columns: [t.facet, t.value] }), check("gallery_counts_count", sql`${t.count} >= 0`)],
);

/**
 * One row: the gallery's generation, which each replay raises in its transaction (with gallery_counts). What a
 * process computed from the gallery (the facets of a filter) holds until the generation it was computed under
 * changes, so every instance can keep it without ever serving what an older gallery said.
 */
export const galleryGeneration = pgTable(
  "gallery_generation",
  {
    one: boolean().primaryKey().default(true),
    generation: bigint({ mode: "number" }).notNull(),
  },
  (t) => [check("gallery_generation_one_row", sql`${t.one}`)],
);
