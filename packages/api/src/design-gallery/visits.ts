import { type ColorMode, collectLangs, collectViewports, type GalleryTermKind } from "@shelf/db/enums";
import { CaptureMeta } from "../schemas/capture-meta";
import { appOf, pageOf } from "./pages";
import type { CaptureRow, VariantKey, Visit } from "./plan-types";

/*
 * A run's captures read as visits of a page in one state, and what the plan decides from the visits alone: the
 * variant each state of a page keeps, and the pages the run found gone. Keys and orders the plan's steps share.
 */

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

export const keyText = (key: VariantKey) => `${key.viewport}|${key.lang}|${key.auth ? 1 : 0}|${key.mode ?? ""}`;
export const pageKey = (app: string, page: string) => `${app}\n${page}`;
export const termKey = (kind: GalleryTermKind, slug: string) => `${kind}:${slug}`;

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

/** HTTP statuses that say a page is gone, not that it failed for now. */
const GONE = new Set([404, 410]);

export const stateText = (key: Pick<VariantKey, "viewport" | "lang" | "auth">) =>
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
