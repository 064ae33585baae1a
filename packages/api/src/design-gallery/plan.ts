import { createHash } from "node:crypto";
import type { schema } from "@shelf/db";
import {
  type CollectLang,
  type CollectViewport,
  type ColorMode,
  collectLangs,
  collectViewports,
  type GalleryFlowKind,
  type GalleryTermKind,
} from "@shelf/db/enums";
import type { ReplaySummary } from "@shelf/db/schema";
import { CaptureMeta } from "../schemas/capture-meta";
import { appOf, originOf, pageOf } from "./pages";
import { searchColumns, searchWords } from "./search";
import type { StyleFacts } from "./styles";
import { variantMask } from "./variant-mask";

/*
 * What a replay does to the gallery, decided without the database: the run's captures and the gallery's current rows
 * of the apps it captured go in, the rows to write and to retire come out (replay.ts reads and writes them).
 *
 * A run changes only what it captured; a partial run (one page, one viewport) is as safe as a full one.
 *
 * - A capture is a visit of (app, page) in one state: viewport, language, signed-in, mode (pages.ts derives app and
 *   page when `meta` does not give them). Only `ok` visits become variants; `redirected` ones (the image of a redirect
 *   shows the page it landed on, not the one asked for) never do. When one state of a page was captured twice, the
 *   later capture is the variant.
 * - For each page the run visited `ok`, the run makes a screen: its own variants, plus every variant of the current
 *   screen in a state the run did not capture this page in (carried, pointing at their older captures). The current
 *   screen is replaced by it. Other pages' screens are untouched.
 * - A page is gone from a viewport, language and signed-in state when the run's visit of it there `failed` with HTTP
 *   404 or 410 and the run has no `ok` visit of it there: its variants in that state (every mode: a status does not
 *   depend on the color scheme) are retired. A screen that keeps some variants is replaced by a screen of the rest; one
 *   that keeps none is removed. Any other failure, and a redirect, changes nothing.
 * - Walks: the pages of an app the run reached in one signed-in state, viewport and language, in the order first
 *   reached, from its `ok` captures whose `meta.walk` is true (slug `signed-out-desktop-en`, ...). A run's walk replaces
 *   the current walk of the same app and state only; a run that did not walk there (captures without `meta.walk`, or
 *   walks in other states) leaves it as it is.
 * - Declared flows: a flow per app and `meta.flow` (steps ordered by `flow_step`, then by capture order; pages without
 *   a step number follow the numbered ones). A run that declares a flow declares it whole: it replaces the current
 *   flow of the same app and slug. Flows the run did not declare stay. Any current flow of which no page has a current
 *   screen left is removed.
 * - Apps: an app's fonts and colors are those of its current screens (each term's largest use on any of them), so a
 *   run that captured a few pages changes only what those pages bring.
 * - Search: a screen's words (app, page, titles, the visible text of its variants' HTML, meta terms) and their
 *   pieces, as search.ts makes them; the visible text is read from the store by the replay (`texts`).
 * - Summary: a replaced screen or flow counts as changed only when what a visitor sees differs (content_sha256);
 *   an app is added when it is new and changed when any of its screens or flows was added, changed or removed. Apps
 *   are never removed.
 */

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

/** Each field of `meta` that parses; a field that does not is ignored rather than the whole capture. */
export function readMeta(meta: unknown): CaptureMeta {
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return {};
  const read: Record<string, unknown> = {};
  for (const [field, fieldSchema] of Object.entries(CaptureMeta.shape)) {
    const parsed = fieldSchema.safeParse((meta as Record<string, unknown>)[field]);
    if (parsed.success && parsed.data !== undefined) read[field] = parsed.data;
  }
  return read as CaptureMeta;
}

export function readVisit(capture: CaptureRow): Visit {
  const meta = readMeta(capture.meta);
  return {
    capture,
    app: appOf(capture.url, meta.app),
    page: pageOf(capture.url, capture.lang, meta.page),
    key: { viewport: capture.viewport, lang: capture.lang, auth: capture.auth, mode: meta.mode ?? null },
    meta,
  };
}

/** Code-point order: the same everywhere, unlike locale collation. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const MODES: (ColorMode | null)[] = ["light", "dark", null];

/** Variants in viewport, language, signed-in and mode order (the enums' orders, signed out first). */
export function compareKeys(a: VariantKey, b: VariantKey): number {
  return (
    collectViewports.indexOf(a.viewport) - collectViewports.indexOf(b.viewport) ||
    collectLangs.indexOf(a.lang) - collectLangs.indexOf(b.lang) ||
    Number(a.auth) - Number(b.auth) ||
    MODES.indexOf(a.mode) - MODES.indexOf(b.mode)
  );
}

const keyText = (key: VariantKey) => `${key.viewport}|${key.lang}|${key.auth ? 1 : 0}|${key.mode ?? ""}`;
const pageKey = (app: string, page: string) => `${app}\n${page}`;
const termKey = (kind: GalleryTermKind, slug: string) => `${kind}:${slug}`;

/** The run's own screens: per app and page, the chosen visit of each state (the later capture of a state wins). */
export function chooseVariants(visits: readonly Visit[]): Map<string, { app: string; page: string; chosen: Visit[] }> {
  const pages = new Map<string, { app: string; page: string; byKey: Map<string, Visit> }>();
  for (const visit of visits) {
    if (visit.capture.outcome !== "ok") continue;
    const id = pageKey(visit.app, visit.page);
    const entry = pages.get(id) ?? { app: visit.app, page: visit.page, byKey: new Map() };
    const known = entry.byKey.get(keyText(visit.key));
    if (!known || known.capture.id < visit.capture.id) entry.byKey.set(keyText(visit.key), visit);
    pages.set(id, entry);
  }
  const chosen = new Map<string, { app: string; page: string; chosen: Visit[] }>();
  for (const [id, entry] of pages) {
    const list = [...entry.byKey.values()].sort((a, b) => compareKeys(a.key, b.key));
    chosen.set(id, { app: entry.app, page: entry.page, chosen: list });
  }
  return chosen;
}

export { pageKey };

function sha256(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
}

function slugify(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, "-");
}

function variantOf(visit: Visit): VariantFields {
  const { capture } = visit;
  return {
    captureId: capture.id,
    runId: capture.runId,
    viewport: capture.viewport,
    lang: capture.lang,
    auth: capture.auth,
    mode: visit.key.mode,
    title: visit.meta.title?.trim() || null,
    url: capture.url,
    imageKey: capture.imageKey,
    imageType: capture.imageType,
    imageSha256: capture.imageSha256,
    imageSize: capture.imageSize,
    imageWidth: capture.imageWidth,
    imageHeight: capture.imageHeight,
    htmlKey: capture.htmlKey,
    htmlSize: capture.htmlSize,
    capturedAt: capture.createdAt,
  };
}

const variantKey = (variant: VariantFields): VariantKey => ({
  viewport: variant.viewport,
  lang: variant.lang,
  auth: variant.auth,
  mode: variant.mode ?? null,
});

/** Terms of the meta of a screen's variants: each counted once per variant that names it. */
function metaTerms(metas: readonly CaptureMeta[]): TermUse[] {
  const terms = new Map<string, TermUse>();
  const add = (kind: GalleryTermKind, text: string, seen: Set<string>) => {
    const label = text.trim();
    const slug = slugify(label);
    const id = termKey(kind, slug);
    if (!slug || seen.has(id)) return;
    seen.add(id);
    const known = terms.get(id);
    terms.set(id, {
      kind,
      slug,
      label: known && compareText(known.label, label) <= 0 ? known.label : label,
      generic: false,
      uses: (known?.uses ?? 0) + 1,
    });
  };
  for (const meta of metas) {
    const seen = new Set<string>();
    if (meta.page_type) add("page_type", meta.page_type, seen);
    for (const pattern of meta.patterns ?? []) add("pattern", pattern, seen);
    for (const element of meta.elements ?? []) add("element", element, seen);
    for (const component of meta.components ?? []) add("component", component, seen);
  }
  return [...terms.values()];
}

/** Fonts and colors as terms. */
export function styleTerms(facts: StyleFacts | undefined): TermUse[] {
  if (!facts) return [];
  const terms: TermUse[] = [];
  for (const [slug, font] of facts.fonts) {
    terms.push({ kind: "font", slug, label: font.label, generic: font.generic, uses: font.uses });
  }
  for (const [color, uses] of facts.colors)
    terms.push({ kind: "color", slug: color, label: color, generic: false, uses });
  return terms;
}

const sortTerms = (terms: TermUse[]) =>
  terms.sort((a, b) => compareText(a.kind, b.kind) || compareText(a.slug, b.slug));

/** The visible text of each capture's HTML, by capture id (none for a capture without HTML). */
export type VisibleTexts = ReadonlyMap<number, string>;

function screenOf(
  appSlug: string,
  page: string,
  variants: VariantFields[],
  metas: CaptureMeta[],
  style: TermUse[],
  replaces: number | null,
  texts: VisibleTexts,
): PlannedScreen {
  variants.sort((a, b) => compareKeys(variantKey(a), variantKey(b)));
  const terms = sortTerms([...metaTerms(metas), ...style]);
  const pageTypes = terms.filter((term) => term.kind === "page_type");
  const pageType = pageTypes.reduce<TermUse | null>(
    (best, term) => (!best || term.uses > best.uses ? term : best),
    null,
  );
  const title = variants.find((variant) => variant.title)?.title ?? null;
  const words = [...searchWords(appSlug), ...searchWords(page)];
  for (const variant of variants) {
    if (variant.title) words.push(...searchWords(variant.title));
    words.push(...searchWords(texts.get(variant.captureId) ?? ""));
  }
  for (const term of terms) if (term.kind !== "font" && term.kind !== "color") words.push(...searchWords(term.label));
  const { searchText, searchGrams } = searchColumns(words);
  return {
    appSlug,
    page,
    title,
    pageType: pageType?.slug ?? null,
    capturedAt: new Date(Math.max(...variants.map((variant) => variant.capturedAt?.getTime() ?? 0))),
    contentSha256: sha256({
      title,
      pageType: pageType?.slug ?? null,
      variants: variants.map((variant) => [keyText(variantKey(variant)), variant.imageSha256, variant.title]),
      terms: terms.map((term) => termKey(term.kind, term.slug)),
    }),
    searchText,
    searchGrams,
    variantMask: variantMask(variants),
    variants,
    terms,
    replaces,
  };
}

export type PlanInput = {
  runId: number;
  visits: Visit[];
  /** Current screens and flows of the apps the run has `ok` visits of. */
  current: { screens: CurrentScreen[]; flows: CurrentFlow[]; appSlugs: Set<string> };
  /** Fonts and colors of each page's chosen captures' CSS (by pageKey). */
  styles: Map<string, StyleFacts>;
  /** The visible text of the HTML of every capture a screen may show: the run's own and the carried ones. */
  texts: VisibleTexts;
};

/** HTTP statuses that say a page is gone, not that it failed for now. */
const GONE = new Set([404, 410]);

const stateText = (key: Pick<VariantKey, "viewport" | "lang" | "auth">) =>
  `${key.viewport}|${key.lang}|${key.auth ? 1 : 0}`;

/** Each page the run found gone, with the states (viewport, language, signed-in) it is gone from. */
export function gonePages(visits: readonly Visit[]): Map<string, { app: string; states: Set<string> }> {
  const reached = new Set<string>();
  for (const visit of visits) {
    if (visit.capture.outcome === "ok") reached.add(`${pageKey(visit.app, visit.page)}\n${stateText(visit.key)}`);
  }
  const gone = new Map<string, { app: string; states: Set<string> }>();
  for (const visit of visits) {
    if (visit.capture.outcome !== "failed" || !GONE.has(visit.capture.httpStatus ?? 0)) continue;
    const id = pageKey(visit.app, visit.page);
    if (reached.has(`${id}\n${stateText(visit.key)}`)) continue;
    const entry = gone.get(id) ?? { app: visit.app, states: new Set<string>() };
    entry.states.add(stateText(visit.key));
    gone.set(id, entry);
  }
  return gone;
}

export function planReplay({ visits, current, styles, texts }: PlanInput): Plan {
  const pages = chooseVariants(visits);
  const gone = gonePages(visits);
  const currentByPage = new Map(current.screens.map((screen) => [pageKey(screen.appSlug, screen.page), screen]));

  const screens: PlannedScreen[] = [];
  const removedScreens: number[] = [];
  const touched = new Set<string>();
  let [added, changed, removed] = [0, 0, 0];

  /** The current screen's variants this run keeps: those it neither captured again nor found gone. */
  const carried = (screen: CurrentScreen, own: Set<string>) => {
    const goneFrom = gone.get(pageKey(screen.appSlug, screen.page))?.states;
    return screen.variants.filter((variant) => {
      const key = variantKey(variant);
      return !own.has(keyText(key)) && !goneFrom?.has(stateText(key));
    });
  };

  for (const [id, { app, page, chosen }] of pages) {
    const old = currentByPage.get(id);
    const own = new Set(chosen.map((visit) => keyText(visit.key)));
    const kept = old ? carried(old, own) : [];
    const screen = screenOf(
      app,
      page,
      [...chosen.map(variantOf), ...kept.map(({ meta: _meta, ...variant }) => variant)],
      [...chosen.map((visit) => visit.meta), ...kept.map((variant) => readMeta(variant.meta))],
      styleTerms(styles.get(id)),
      old?.id ?? null,
      texts,
    );
    screens.push(screen);
    if (!old) added++;
    else if (old.contentSha256 !== screen.contentSha256) changed++;
    else continue;
    touched.add(app);
  }

  for (const old of current.screens) {
    const id = pageKey(old.appSlug, old.page);
    if (pages.has(id) || !gone.has(id)) continue;
    const kept = carried(old, new Set());
    if (kept.length === old.variants.length) continue;
    touched.add(old.appSlug);
    if (kept.length === 0) {
      removedScreens.push(old.id);
      removed++;
      continue;
    }
    const screen = screenOf(
      old.appSlug,
      old.page,
      kept.map(({ meta: _meta, ...variant }) => variant),
      kept.map((variant) => readMeta(variant.meta)),
      old.styleTerms.map((term) => ({ ...term })),
      old.id,
      texts,
    );
    screens.push(screen);
    if (old.contentSha256 !== screen.contentSha256) changed++;
  }
  screens.sort((a, b) => compareText(a.appSlug, b.appSlug) || compareText(a.page, b.page));

  const flowPlan = planFlows(visits, current.flows, screens, removedScreens, current.screens);
  for (const app of flowPlan.touched) touched.add(app);

  // The apps it made screens of, and those it found pages gone from (an app it only found gone in is not made).
  const goneFrom = [...gone.values()].map(({ app }) => app).filter((app) => current.appSlugs.has(app));
  const appSlugs = [...new Set([...[...pages.values()].map(({ app }) => app), ...goneFrom])];
  const apps = appSlugs.sort(compareText).map((slug) => {
    const first =
      visits.find((visit) => visit.app === slug && visit.capture.outcome === "ok") ??
      visits.find((visit) => visit.app === slug);
    return {
      slug,
      origin: originOf(first?.capture.url ?? ""),
      terms: appStyleTerms(slug, screens, removedScreens, current.screens),
    };
  });
  const newApps = apps.filter((app) => !current.appSlugs.has(app.slug)).length;
  const changedApps = [...touched].filter((app) => current.appSlugs.has(app)).length;

  return {
    apps,
    screens,
    removedScreens: removedScreens.sort((a, b) => a - b),
    flows: flowPlan.flows,
    removedFlows: flowPlan.removed,
    summary: {
      added: { apps: newApps, screens: added, flows: flowPlan.added },
      changed: { apps: changedApps, screens: changed, flows: flowPlan.changed },
      removed: { apps: 0, screens: removed, flows: flowPlan.removed.length },
    },
    skipped: {
      failed: visits.filter((visit) => visit.capture.outcome === "failed").length,
      redirected: visits.filter((visit) => visit.capture.outcome === "redirected").length,
      repeated:
        visits.filter((visit) => visit.capture.outcome === "ok").length -
        [...pages.values()].reduce((sum, entry) => sum + entry.chosen.length, 0),
    },
  };
}

/** An app's fonts and colors: each term of its screens current after the replay, at its largest use on one of them. */
function appStyleTerms(
  app: string,
  screens: readonly PlannedScreen[],
  removedScreens: readonly number[],
  currentScreens: readonly CurrentScreen[],
): TermUse[] {
  const retired = new Set([...removedScreens, ...screens.flatMap((screen) => screen.replaces ?? [])]);
  const live = [
    ...screens.filter((screen) => screen.appSlug === app).map((screen) => screen.terms),
    ...currentScreens.filter((screen) => screen.appSlug === app && !retired.has(screen.id)).map((s) => s.styleTerms),
  ];
  const terms = new Map<string, TermUse>();
  for (const term of live.flat()) {
    if (term.kind !== "font" && term.kind !== "color") continue;
    const id = termKey(term.kind, term.slug);
    const known = terms.get(id);
    if (!known || term.uses > known.uses) terms.set(id, { ...term });
  }
  return sortTerms([...terms.values()]);
}

function planFlows(
  visits: readonly Visit[],
  currentFlows: readonly CurrentFlow[],
  screens: readonly PlannedScreen[],
  removedScreens: readonly number[],
  currentScreens: readonly CurrentScreen[],
) {
  const ok = visits.filter((visit) => visit.capture.outcome === "ok");
  const flows: PlannedFlow[] = [];

  // Declared flows: distinct (page, step) pairs, by step number then by first capture.
  const declared = new Map<string, { app: string; slug: string; names: string[]; steps: Map<string, StepDraft> }>();
  for (const visit of ok) {
    if (!visit.meta.flow) continue;
    const slug = slugify(visit.meta.flow);
    if (!slug) continue;
    const id = `${visit.app}\n${slug}`;
    const entry = declared.get(id) ?? { app: visit.app, slug, names: [] as string[], steps: new Map() };
    entry.names.push(visit.meta.flow.trim());
    const step = visit.meta.flow_step ?? null;
    const stepId = `${visit.page}\n${step ?? ""}`;
    const known = entry.steps.get(stepId);
    if (!known || visit.capture.id < known.first) {
      entry.steps.set(stepId, { page: visit.page, step, first: visit.capture.id });
    }
    declared.set(id, entry);
  }
  for (const { app, slug, names, steps } of declared.values()) {
    const ordered = [...steps.values()].sort(
      (a, b) => (a.step ?? Number.MAX_SAFE_INTEGER) - (b.step ?? Number.MAX_SAFE_INTEGER) || a.first - b.first,
    );
    const name = [...names].sort(compareText)[0] ?? slug;
    flows.push(flowOf(app, "declared", slug, name, null, ordered));
  }

  // Walks: the pages each app's walk reached in one signed-in state, viewport and language, in the order first reached.
  const walks = new Map<string, { app: string; key: WalkKey; steps: Map<string, StepDraft> }>();
  for (const visit of ok) {
    if (visit.meta.walk !== true) continue;
    const key = { auth: visit.key.auth, viewport: visit.key.viewport, lang: visit.key.lang };
    const id = `${visit.app}\n${walkSlug(key)}`;
    const entry = walks.get(id) ?? { app: visit.app, key, steps: new Map() };
    const known = entry.steps.get(visit.page);
    if (!known || visit.capture.id < known.first) {
      entry.steps.set(visit.page, { page: visit.page, step: null, first: visit.capture.id });
    }
    walks.set(id, entry);
  }
  for (const { app, key, steps } of walks.values()) {
    const ordered = [...steps.values()].sort((a, b) => a.first - b.first);
    flows.push(flowOf(app, "walk", walkSlug(key), null, key, ordered));
  }
  flows.sort((a, b) => compareText(a.appSlug, b.appSlug) || compareText(a.kind, b.kind) || compareText(a.slug, b.slug));

  // Which current flows are replaced, removed, or stay.
  const byKey = new Map(currentFlows.map((flow) => [`${flow.appSlug}\n${flow.kind}\n${flow.slug}`, flow]));
  const livePages = new Set<string>();
  const removedIds = new Set(removedScreens);
  for (const screen of currentScreens) {
    if (!removedIds.has(screen.id)) livePages.add(pageKey(screen.appSlug, screen.page));
  }
  for (const screen of screens) livePages.add(pageKey(screen.appSlug, screen.page));

  const touched = new Set<string>();
  let [added, changed] = [0, 0];
  for (const flow of flows) {
    const old = byKey.get(`${flow.appSlug}\n${flow.kind}\n${flow.slug}`);
    flow.replaces = old?.id ?? null;
    if (!old) added++;
    else if (old.contentSha256 !== flow.contentSha256) changed++;
    else continue;
    touched.add(flow.appSlug);
  }
  const planned = new Set(flows.map((flow) => `${flow.appSlug}\n${flow.kind}\n${flow.slug}`));
  const removed: number[] = [];
  for (const flow of currentFlows) {
    if (planned.has(`${flow.appSlug}\n${flow.kind}\n${flow.slug}`)) continue;
    if (!flow.pages.some((page) => livePages.has(pageKey(flow.appSlug, page)))) {
      removed.push(flow.id);
      touched.add(flow.appSlug);
    }
  }
  return { flows, removed: removed.sort((a, b) => a - b), added, changed, touched };
}

/** The state a walk was made in. */
export type WalkKey = { auth: boolean; viewport: CollectViewport; lang: CollectLang };

/** A walk's slug: its signed-in state, viewport and language (`signed-out-mobile-ko`). */
export const walkSlug = (key: WalkKey) => `${key.auth ? "signed-in" : "signed-out"}-${key.viewport}-${key.lang}`;

type StepDraft = { page: string; step: number | null; first: number };

function flowOf(
  appSlug: string,
  kind: GalleryFlowKind,
  slug: string,
  name: string | null,
  walk: WalkKey | null,
  steps: StepDraft[],
): PlannedFlow {
  const planned = steps.map(({ page, step }) => ({ page, flowStep: step }));
  return {
    appSlug,
    kind,
    slug,
    name,
    auth: walk?.auth ?? null,
    viewport: walk?.viewport ?? null,
    lang: walk?.lang ?? null,
    contentSha256: sha256({ name, steps: planned.map((step) => [step.page, step.flowStep]) }),
    steps: planned,
    replaces: null,
  };
}
