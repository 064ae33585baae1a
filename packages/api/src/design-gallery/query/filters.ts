import type { Database } from "@shelf/db";
import type { CollectLang, CollectViewport, ColorMode, GalleryPlatform, GalleryTermKind } from "@shelf/db/enums";
import { type SQL, sql } from "drizzle-orm";
import { type FieldErrors, ValidationError } from "../../errors";
import { type TermFilter, termFilters } from "../../schemas/gallery-screens";
import { sqlRows } from "../../sql-text";
import { searchQuery } from "../search";
import { matchingMask } from "../variant-mask";

/*
 * A screens list's filters: the names they give resolved to what the gallery holds (unknown ones are 422, never an
 * empty list), and the SQL conditions they make over a screen `s` and its variants `v` (schema:
 * packages/db/src/schema/gallery.ts, whose header maps each filter to its index).
 */

/** The filters of a screens query as the route's input gives them (ScreensQuery, routers/design-gallery/schemas.ts). */
export type FilterInput = {
  platform?: GalleryPlatform;
  app?: string;
  q?: string;
  kind?: string;
  viewport?: CollectViewport;
  lang?: CollectLang;
  mode?: ColorMode;
} & { [field in TermFilter]?: string[] };

/** The filters of a screens list with every name resolved to what the database holds. */
export type ResolvedFilters = {
  platform: string | null;
  appId: number | null;
  kind: string | null;
  viewport: string | null;
  lang: string | null;
  mode: string | null;
  /** The terms every screen must have (patterns, components, elements, fonts, colors). */
  termIds: number[];
  q: { words: string[]; grams: string[] } | null;
};

const META_KINDS = new Set<GalleryTermKind>(["page_type", "pattern", "element", "component"]);

/** A name as the gallery's slugs are written (see design-gallery/screens.ts and styles.ts). */
export function termSlug(kind: GalleryTermKind, name: string): string {
  const text = name.trim().toLowerCase();
  if (META_KINDS.has(kind)) return text.replace(/\s+/g, "-");
  if (kind === "font") return text.replace(/\s+/g, " ");
  return /^[0-9a-f]{6}([0-9a-f]{2})?$/.test(text) ? `#${text}` : text;
}

/** Looks up the names the filters give: a name the gallery does not have is a 422 naming its field. */
export async function resolveFilters(db: Database, input: FilterInput): Promise<ResolvedFilters> {
  const wanted: { field: TermFilter | "kind"; kind: GalleryTermKind; name: string; slug: string }[] = [];
  if (input.kind !== undefined) {
    wanted.push({ field: "kind", kind: "page_type", name: input.kind, slug: termSlug("page_type", input.kind) });
  }
  for (const field of Object.keys(termFilters) as TermFilter[]) {
    const kind = termFilters[field];
    for (const name of input[field] ?? []) wanted.push({ field, kind, name, slug: termSlug(kind, name) });
  }
  const app = input.app?.trim().toLowerCase();
  const lookups: SQL[] = [];
  if (wanted.length > 0) {
    const pairs = sql.join(
      wanted.map((term) => sql`(${term.kind}, ${term.slug})`),
      sql`, `,
    );
    lookups.push(sql`select t.kind, t.slug, t.id from gallery_terms t where (t.kind, t.slug) in (${pairs})`);
  }
  if (app !== undefined) {
    lookups.push(sql`select 'app' as kind, a.slug, a.id from gallery_apps a where a.slug = ${app}`);
  }
  const found = new Map<string, number>();
  if (lookups.length > 0) {
    const rows = await sqlRows<{ kind: string; slug: string; id: number }>(db, sql.join(lookups, sql` union all `));
    for (const row of rows) found.set(`${row.kind}:${row.slug}`, row.id);
  }
  const errors: FieldErrors = {};
  const refuse = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const termIds: number[] = [];
  for (const term of wanted) {
    const id = found.get(`${term.kind}:${term.slug}`);
    if (id === undefined) refuse(term.field, `the gallery has no ${term.kind.replace("_", " ")} "${term.name}"`);
    else if (term.field !== "kind") termIds.push(id);
  }
  const appId = app === undefined ? null : (found.get(`app:${app}`) ?? null);
  if (app !== undefined && appId === null) refuse("app", `the gallery has no app "${input.app}"`);
  let q: ResolvedFilters["q"] = null;
  if (input.q !== undefined && input.q.trim() !== "") {
    q = searchQuery(input.q);
    if (q.words.length === 0) refuse("q", "must hold a letter or a digit");
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    platform: input.platform ?? null,
    appId,
    kind: input.kind === undefined ? null : termSlug("page_type", input.kind),
    viewport: input.viewport ?? null,
    lang: input.lang ?? null,
    mode: input.mode ?? null,
    termIds: [...new Set(termIds)],
    q,
  };
}

export const TRUE = sql`true`;
export const and = (parts: SQL[]) => (parts.length === 0 ? TRUE : sql.join(parts, sql` and `));

/** The variant conditions on `v` (those given, less the ones left out). */
export function variantMatch(f: ResolvedFilters, leaveOut?: "viewport" | "lang" | "mode"): SQL {
  const parts: SQL[] = [];
  if (f.viewport && leaveOut !== "viewport") parts.push(sql`v.viewport = ${f.viewport}`);
  if (f.lang && leaveOut !== "lang") parts.push(sql`v.lang = ${f.lang}`);
  if (f.mode && leaveOut !== "mode") parts.push(sql`v.mode = ${f.mode}`);
  return and(parts);
}

const hasVariantFilter = (f: ResolvedFilters) => f.viewport !== null || f.lang !== null || f.mode !== null;

/** The conditions every facet keeps: the words and the terms (over `s`). */
export function alwaysConditions(f: ResolvedFilters): SQL[] {
  const parts: SQL[] = [sql`s.status = 'current'`];
  if (f.q) {
    const grams = sql.join(
      f.q.grams.map((gram) => sql`${gram}`),
      sql`, `,
    );
    parts.push(sql`s.search_grams @> array[${grams}]::text[]`);
    // A word of one or two characters is one of the pieces itself: the index alone proves it is there.
    for (const word of f.q.words) {
      if (Array.from(word).length > 2) parts.push(sql`strpos(s.search_text, ${word}) > 0`);
    }
  }
  for (const id of f.termIds) {
    parts.push(sql`exists (select 1 from gallery_screen_terms st where st.screen_id = s.id and st.term_id = ${id})`);
  }
  return parts;
}

const platformMatch = (f: ResolvedFilters) =>
  f.platform === null ? TRUE : sql`s.app_id in (select pa.id from gallery_apps pa where pa.platform = ${f.platform})`;
export const appMatch = (f: ResolvedFilters) => (f.appId === null ? TRUE : sql`s.app_id = ${f.appId}`);
export const kindMatch = (f: ResolvedFilters) => (f.kind === null ? TRUE : sql`s.page_type = ${f.kind}`);

/** Every condition of the list, over `s`. */
export function screenConditions(f: ResolvedFilters): SQL {
  const parts = alwaysConditions(f);
  if (f.platform !== null) parts.push(platformMatch(f));
  if (f.appId !== null) parts.push(appMatch(f));
  if (f.kind !== null) parts.push(kindMatch(f));
  if (hasVariantFilter(f)) parts.push(sql`(s.variant_mask & ${matchingMask(f)}) <> 0`);
  return and(parts);
}

export const NO_FILTERS: ResolvedFilters = {
  platform: null,
  appId: null,
  kind: null,
  viewport: null,
  lang: null,
  mode: null,
  termIds: [],
  q: null,
};

export const unfiltered = (f: ResolvedFilters) =>
  f.platform === null &&
  f.appId === null &&
  f.kind === null &&
  !hasVariantFilter(f) &&
  f.termIds.length === 0 &&
  f.q === null;
