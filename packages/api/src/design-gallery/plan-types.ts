import type { schema } from "@shelf/db";
import type { CollectLang, CollectViewport, ColorMode, GalleryFlowKind, GalleryTermKind } from "@shelf/db/enums";
import type { ReplaySummary } from "@shelf/db/schema";
import type { CaptureMeta } from "../schemas/capture-meta";

/* What the plan (plan.ts) reads and decides: the run's visits, the gallery's current rows, the rows to write. */

export type CaptureRow = typeof schema.collectCaptures.$inferSelect;
type VariantRow = typeof schema.galleryScreenVariants.$inferInsert;
export type VariantFields = Omit<VariantRow, "id" | "screenId">;

export type VariantKey = { viewport: CollectViewport; lang: CollectLang; auth: boolean; mode: ColorMode | null };

export type Term = { kind: GalleryTermKind; slug: string; label: string; generic: boolean };
export type TermUse = Term & { uses: number };

/** A current screen of an app the run captured, as the replay reads it. */
export type CurrentScreen = {
  id: number;
  appSlug: string;
  page: string;
  contentSha256: string;
  /** Its variants, each with its capture's `meta`. */
  variants: (VariantFields & { meta: unknown })[];
  /** Its font and color terms (kept by a screen made only of its variants). */
  styleTerms: TermUse[];
};

export type CurrentFlow = {
  id: number;
  appSlug: string;
  kind: GalleryFlowKind;
  slug: string;
  contentSha256: string;
  /** Its steps' pages. */
  pages: string[];
};

export type PlannedScreen = {
  appSlug: string;
  page: string;
  title: string | null;
  pageType: string | null;
  capturedAt: Date;
  contentSha256: string;
  searchText: string;
  searchGrams: string[];
  /** The states of its variants, a bit each (variant-mask.ts). */
  variantMask: number;
  variants: VariantFields[];
  terms: TermUse[];
  /** The current screen it replaces. */
  replaces: number | null;
};

export type PlannedFlow = {
  appSlug: string;
  kind: GalleryFlowKind;
  slug: string;
  name: string | null;
  /** A walk's signed-in state, viewport and language; null for a declared flow. */
  auth: boolean | null;
  viewport: CollectViewport | null;
  lang: CollectLang | null;
  contentSha256: string;
  steps: { page: string; flowStep: number | null }[];
  replaces: number | null;
};

export type PlannedApp = { slug: string; origin: string; terms: TermUse[] };

export type Plan = {
  apps: PlannedApp[];
  screens: PlannedScreen[];
  /** Current screens retired without a replacement. */
  removedScreens: number[];
  flows: PlannedFlow[];
  removedFlows: number[];
  summary: ReplaySummary;
  /** Captures that made no variant: failed, redirected, or an earlier capture of the same page and state. */
  skipped: { failed: number; redirected: number; repeated: number };
};

/** A capture read as a visit of one page in one state. */
export type Visit = {
  capture: CaptureRow;
  app: string;
  page: string;
  key: VariantKey;
  meta: CaptureMeta;
};

/** The visible text of each capture's HTML, by capture id (none for a capture without HTML). */
export type VisibleTexts = ReadonlyMap<number, string>;
