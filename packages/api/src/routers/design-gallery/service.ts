import type { Database, Executor } from "@shelf/db";
import type { CaptureImageType, CollectLang, CollectViewport, GalleryTermKind } from "@shelf/db/enums";
import { type SQL, sql } from "drizzle-orm";
import { FacetCache } from "../../design-gallery/facet-cache";
import { searchQuery } from "../../design-gallery/search";
import { matchingMask } from "../../design-gallery/variant-mask";
import { readApiEnv } from "../../env";
import { DomainError, type FieldErrors, ValidationError } from "../../errors";
import { isoSql, sqlRows } from "../../sql-text";
import { afterScreen, readScreensCursor, writeScreensCursor } from "./cursor";
import { PATTERN_DEFINITIONS } from "./pattern-definitions";
import {
  type FacetName,
  type FacetValue,
  facetNames,
  GALLERY_GRID,
  type GalleryScreenCard,
  type GalleryScreenDetail,
  pageSizeFor,
  type ScreenFacets,
  type ScreenSort,
  type ScreensPage,
  type ScreensQuery,
  type TermFilter,
  taxonomyLists,
  termFilters,
} from "./schemas";

/*
 * The gallery's reads (schema: packages/db/src/schema/gallery.ts, whose header maps each filter to its index). Lists
 * show current screens only; a screen by id is shown whatever its status, so history stays reachable.
 *
 * The screens list is at most three statements: the names its filters give are looked up first (unknown ones are 422,
 * never an empty list), then the page and either its total or, with facets, one statement that counts the total and
 * every facet over the same filtered set.
 */

/** Where links in answers point: the design host's public base URL. */
/** Where image links point: the host's public base URL; empty, paths on whatever host serves the answer (pages). */
export type GalleryLinks = { baseUrl: string };

export const imagePath = (screenId: number, variantId: number) =>
  `/api/v1/screens/${screenId}/variants/${variantId}/image`;

const imageUrl = (links: GalleryLinks, screenId: number, variantId: number) =>
  links.baseUrl ? new URL(imagePath(screenId, variantId), links.baseUrl).toString() : imagePath(screenId, variantId);

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

/** A name as the gallery's slugs are written (see design-gallery/plan.ts and styles.ts). */
export function termSlug(kind: GalleryTermKind, name: string): string {
  const text = name.trim().toLowerCase();
  if (META_KINDS.has(kind)) return text.replace(/\s+/g, "-");
  if (kind === "font") return text.replace(/\s+/g, " ");
  return /^[0-9a-f]{6}([0-9a-f]{2})?$/.test(text) ? `#${text}` : text;
}

/** Looks up the names the filters give: a name the gallery does not have is a 422 naming its field. */
export async function resolveFilters(db: Database, input: ScreensQuery): Promise<ResolvedFilters> {
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

const TRUE = sql`true`;
const and = (parts: SQL[]) => (parts.length === 0 ? TRUE : sql.join(parts, sql` and `));

/** The variant conditions on `v` (those given, less the ones left out). */
function variantMatch(f: ResolvedFilters, leaveOut?: "viewport" | "lang" | "mode"): SQL {
  const parts: SQL[] = [];
  if (f.viewport && leaveOut !== "viewport") parts.push(sql`v.viewport = ${f.viewport}`);
  if (f.lang && leaveOut !== "lang") parts.push(sql`v.lang = ${f.lang}`);
  if (f.mode && leaveOut !== "mode") parts.push(sql`v.mode = ${f.mode}`);
  return and(parts);
}

const hasVariantFilter = (f: ResolvedFilters) => f.viewport !== null || f.lang !== null || f.mode !== null;

/** The conditions every facet keeps: the words and the terms (over `s`). */
function alwaysConditions(f: ResolvedFilters): SQL[] {
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
const appMatch = (f: ResolvedFilters) => (f.appId === null ? TRUE : sql`s.app_id = ${f.appId}`);
const kindMatch = (f: ResolvedFilters) => (f.kind === null ? TRUE : sql`s.page_type = ${f.kind}`);

/** Every condition of the list, over `s`. */
function screenConditions(f: ResolvedFilters): SQL {
  const parts = alwaysConditions(f);
  if (f.platform !== null) parts.push(platformMatch(f));
  if (f.appId !== null) parts.push(appMatch(f));
  if (f.kind !== null) parts.push(kindMatch(f));
  if (hasVariantFilter(f)) parts.push(sql`(s.variant_mask & ${matchingMask(f)}) <> 0`);
  return and(parts);
}

const ORDER: Record<ScreenSort, SQL> = {
  newest: sql`s.captured_at desc, s.id desc`,
  oldest: sql`s.captured_at, s.id`,
  name: sql`(coalesce(s.title, s.page) COLLATE "C"), s.id`,
};

/** Variants in the gallery's order: viewport, language (ko first), signed out first, light, dark, unsaid. */
const VARIANT_ORDER = sql`v.viewport, v.lang <> 'ko', v.auth, v.mode is null, v.mode = 'dark', v.id`;

type CardRow = {
  id: number;
  page: string;
  title: string | null;
  page_type: string | null;
  captured_at: string;
  app_id: number;
  app_slug: string;
  app_platform: "web";
  variant_count: number;
  variant_id: number;
  viewport: "desktop" | "mobile";
  lang: "ko" | "en";
  auth: boolean;
  mode: "light" | "dark" | null;
  image_type: CaptureImageType;
  image_width: number;
  image_height: number;
  image_size: number;
  image_sha256: string;
};

/** Screen cards: the screens `where` selects, in `order`, each with its thumbnail (a variant `thumbnail` matches). */
function cardsQuery(where: SQL, order: SQL, thumbnail: SQL, page?: { limit: number; offset: number }): SQL {
  // The page's screens first, then each one's app, thumbnail and variant count: never for the screens it skips.
  return sql`
    select s.id, s.page, s.title, s.page_type, ${sql.raw(isoSql("s.captured_at"))} as captured_at,
      a.id as app_id, a.slug as app_slug, a.platform as app_platform,
      (select count(*)::int from gallery_screen_variants c where c.screen_id = s.id) as variant_count,
      th.id as variant_id, th.viewport, th.lang, th.auth, th.mode, th.image_type, th.image_width, th.image_height,
      th.image_size, th.image_sha256
    from (
      select s.id, s.app_id, s.page, s.title, s.page_type, s.captured_at from gallery_screens s
      where ${where}
      order by ${order}
      ${page ? sql`limit ${page.limit} offset ${page.offset}` : sql``}
    ) s
    join gallery_apps a on a.id = s.app_id
    cross join lateral (
      select v.id, v.viewport, v.lang, v.auth, v.mode, v.image_type, v.image_width, v.image_height, v.image_size,
        v.image_sha256
      from gallery_screen_variants v where v.screen_id = s.id and ${thumbnail}
      order by ${VARIANT_ORDER} limit 1
    ) th
    order by ${order}`;
}

function cardOf(row: CardRow, links: GalleryLinks): GalleryScreenCard {
  return {
    id: row.id,
    app: { id: row.app_id, slug: row.app_slug, platform: row.app_platform },
    page: row.page,
    title: row.title,
    page_type: row.page_type,
    captured_at: row.captured_at,
    variant_count: row.variant_count,
    thumbnail: {
      variant_id: row.variant_id,
      viewport: row.viewport,
      lang: row.lang,
      signed_in: row.auth,
      mode: row.mode,
      image: {
        url: imageUrl(links, row.id, row.variant_id),
        type: row.image_type,
        width: row.image_width,
        height: row.image_height,
        size: row.image_size,
        sha256: row.image_sha256,
      },
    },
  };
}

type FacetRow = { facet: string; value: string; label: string; count: number };

/** Each term kind's facet (the page type is the `kind` facet, counted by the screen's own page type). */
const TERM_FACET_SQL = sql.raw(
  `case t.kind ${Object.entries(termFilters)
    .map(([facet, kind]) => `when '${kind}' then '${facet}'`)
    .join(" ")} end`,
);

/**
 * The total and every facet in one statement, rows of (facet, value, label, count, ref). `b`: the current screens
 * every facet keeps (words and terms), from the facts index, each with whether it passes the platform, app, kind and
 * variant filters and, for each viewport, language and mode, whether it would with that value instead (its variant
 * mask against the filters with that value). Each single-valued facet counts them under the other filters: by page
 * type, by app (the platforms are their apps' sums), and over all for the total and the variant facets. The term
 * facets count the terms of the screens that pass every filter (`hits`); when those are most of the gallery, the
 * stored unfiltered counts less the terms of the other screens say the same for less.
 */
export function facetsQuery(f: ResolvedFilters): SQL {
  const flag = (column: "viewport" | "lang" | "mode", value: string) =>
    sql`(s.variant_mask & ${matchingMask({ ...f, [column]: value })}) <> 0`;
  const placed = sql`b.platform_ok and b.app_ok and b.kind_ok`;
  const states = ["desktop", "mobile", "ko", "en", "light", "dark"] as const;
  const termFacets = sql.raw(
    Object.keys(termFilters)
      .map((facet) => `'${facet}'`)
      .join(", "),
  );
  // The current screens outside `hits`: those `b` holds that miss a filter, and when words or terms narrowed `b`,
  // every current screen it does not hold as well.
  const narrowed = f.q !== null || f.termIds.length > 0;
  const others = narrowed
    ? sql`select o.id from gallery_screens o where o.status = 'current' and not exists (select 1 from hits h where h.id = o.id)`
    : sql`select b.id from b where not (b.variant_ok and ${placed})`;
  const platformOk =
    f.platform === null ? TRUE : sql`s.app_id in (select pa.id from gallery_apps pa where pa.platform = ${f.platform})`;
  return sql`
    with b as (
      select s.id, s.app_id, s.page_type,
        ${platformOk} as platform_ok, ${appMatch(f)} as app_ok, ${kindMatch(f)} as kind_ok,
        (s.variant_mask & ${matchingMask(f)}) <> 0 as variant_ok,
        ${flag("viewport", "desktop")} as desktop, ${flag("viewport", "mobile")} as mobile,
        ${flag("lang", "ko")} as ko, ${flag("lang", "en")} as en,
        ${flag("mode", "light")} as light, ${flag("mode", "dark")} as dark
      from gallery_screens s
      where ${and(alwaysConditions(f))}
    ),
    hits as (select b.id from b where b.variant_ok and ${placed}),
    kinds as (
      select b.page_type, count(*) filter (where b.variant_ok and b.platform_ok and b.app_ok)::int as count
      from b where b.page_type is not null group by b.page_type
    ),
    apps as (
      select b.app_id, count(*) filter (where b.variant_ok and b.platform_ok and b.kind_ok)::int as count,
        count(*) filter (where b.variant_ok and b.app_ok and b.kind_ok)::int as platforms
      from b group by b.app_id
    ),
    overall as (
      select count(*) filter (where b.variant_ok and ${placed})::int as total,
        ${sql.join(
          states.map(
            (state) => sql`count(*) filter (where b.${sql.raw(state)} and ${placed})::int as ${sql.raw(state)}`,
          ),
          sql`, `,
        )}
      from b
    ),
    most as (
      select (select overall.total from overall) * 2
        > (select c.count from gallery_counts c where c.facet = 'total' and c.value = '') as yes
    ),
    counted as (
      select 'total' as facet, '' as value, null::int as ref, overall.total as count from overall
      union all
      select 'kind', kinds.page_type, null, kinds.count from kinds
      union all
      select 'app', '', apps.app_id, apps.count from apps
      union all
      select 'platform', pa.platform, null, sum(apps.platforms)::int from apps
        join gallery_apps pa on pa.id = apps.app_id
        group by pa.platform
      union all
      select x.facet, x.value, null, x.count from overall
        cross join lateral (values ('viewport', 'desktop', overall.desktop), ('viewport', 'mobile', overall.mobile),
          ('lang', 'ko', overall.ko), ('lang', 'en', overall.en), ('mode', 'light', overall.light),
          ('mode', 'dark', overall.dark)) as x(facet, value, count)
      union all
      select 'term', '', st.term_id, count(*)::int from gallery_screen_terms st
        where not coalesce((select most.yes from most), false) and st.screen_id in (select hits.id from hits)
        group by st.term_id
      union all
      select 'term', '', g.ref, (g.count - coalesce(other.count, 0))::int from gallery_counts g
        left join (
          select st.term_id, count(*)::int as count from gallery_screen_terms st
          where st.screen_id in (${others})
          group by st.term_id
        ) as other on other.term_id = g.ref
        where coalesce((select most.yes from most), false) and g.facet in (${termFacets})
    )
    select coalesce(${TERM_FACET_SQL}, c.facet) as facet, coalesce(t.slug, a.slug, c.value) as value,
      coalesce(t.label, pt.label, a.slug, c.value) as label, c.count, c.ref
    from counted c
    left join gallery_terms t on c.facet = 'term' and t.id = c.ref
    left join gallery_apps a on c.facet = 'app' and a.id = c.ref
    left join gallery_terms pt on c.facet = 'kind' and pt.kind = 'page_type' and pt.slug = c.value
    where c.facet <> 'term' or t.kind <> 'page_type'`;
}

const NO_FILTERS: ResolvedFilters = {
  platform: null,
  appId: null,
  kind: null,
  viewport: null,
  lang: null,
  mode: null,
  termIds: [],
  q: null,
};

const unfiltered = (f: ResolvedFilters) =>
  f.platform === null &&
  f.appId === null &&
  f.kind === null &&
  !hasVariantFilter(f) &&
  f.termIds.length === 0 &&
  f.q === null;

/**
 * Rewrites gallery_counts (the facets with no filter) and raises the gallery's generation (what processes kept of
 * the older one no longer answers). The replay runs it in its transaction, after its writes, so the counts always
 * say what the gallery holds.
 */
export async function refreshGalleryCounts(db: Executor): Promise<void> {
  await db.execute(sql`delete from gallery_counts`);
  await db.execute(
    sql`insert into gallery_generation (one, generation) values (true, 1)
      on conflict (one) do update set generation = gallery_generation.generation + 1`,
  );
  await db.execute(
    sql`insert into gallery_counts (facet, value, label, count, ref)
      select * from (${facetsQuery(NO_FILTERS)}) as counts`,
  );
}

/** The unfiltered facets as the last replay counted them; none (a gallery no replay has counted yet): null. */
async function storedCounts(db: Database): Promise<FacetRow[] | null> {
  const rows = await sqlRows<FacetRow>(db, sql`select g.facet, g.value, g.label, g.count from gallery_counts g`);
  return rows.some((row) => row.facet === "total") ? rows : null;
}

function facetsOf(rows: FacetRow[]): { total: number; facets: ScreenFacets } {
  const facets = Object.fromEntries(facetNames.map((name) => [name, [] as FacetValue[]])) as ScreenFacets;
  let total = 0;
  for (const row of rows) {
    if (row.facet === "total") {
      total = row.count;
      continue;
    }
    if (row.count > 0) facets[row.facet as FacetName]?.push({ value: row.value, label: row.label, count: row.count });
  }
  for (const list of Object.values(facets)) {
    list.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  }
  return { total, facets };
}

type Counted = { total: number; facets: ScreenFacets };

let facetCacheBytes: number | undefined;
/** The facets of the filters in use, per gallery generation (design-gallery/facet-cache.ts). */
const facetCache = new FacetCache<Counted>(
  () => (facetCacheBytes ??= readApiEnv().SHELF_GALLERY_FACET_CACHE_MB * 1024 * 1024),
);
/** Facets as JSON, written once for those the cache keeps (an unfiltered page's are 80 KB). */
const facetsJson = new WeakMap<ScreenFacets, string>();

/** The answer of a screens list as JSON, with the facets' text written once per cache entry. */
export function screensPageText(page: ScreensPage): string {
  const { facets, ...rest } = page;
  let text = facets === null ? "null" : facetsJson.get(facets);
  if (text === undefined) text = JSON.stringify(facets);
  return `${JSON.stringify(rest).slice(0, -1)},"facets":${text}}`;
}

/** The gallery's generation (null before the table has its row: nothing is cached then). */
async function galleryGeneration(db: Database): Promise<number | null> {
  const [row] = await sqlRows<{ generation: string }>(db, sql`select g.generation::text from gallery_generation g`);
  return row ? Number(row.generation) : null;
}

/** What the total and facets depend on: the filters, not the page, its size or its order. */
const facetKey = (f: ResolvedFilters) =>
  JSON.stringify([
    f.platform,
    f.appId,
    f.kind,
    f.viewport,
    f.lang,
    f.mode,
    [...f.termIds].sort((a, b) => a - b),
    f.q?.words ?? null,
  ]);

/** The total and every facet: stored for no filter at all, else counted now; frozen, as the cache shares them. */
async function countFacets(db: Database, filters: ResolvedFilters): Promise<Counted> {
  const rows =
    (unfiltered(filters) ? await storedCounts(db) : null) ?? (await sqlRows<FacetRow>(db, facetsQuery(filters)));
  const counted = facetsOf(rows);
  for (const list of Object.values(counted.facets)) {
    for (const value of list) Object.freeze(value);
    Object.freeze(list);
  }
  Object.freeze(counted.facets);
  return counted;
}

/** The total and (with facets) the facets of the filters: kept for this generation, or counted now. */
async function countScreens(
  db: Database,
  filters: ResolvedFilters,
  withFacets: boolean,
  where: SQL,
): Promise<{ total: number; facets: ScreenFacets | null }> {
  const generation = await galleryGeneration(db);
  const key = facetKey(filters);
  if (withFacets) {
    if (generation === null) return countFacets(db, filters);
    return facetCache.get(generation, key, async () => {
      const value = await countFacets(db, filters);
      const text = JSON.stringify(value.facets);
      facetsJson.set(value.facets, text);
      return { value, bytes: text.length * 3 };
    });
  }
  const kept = generation === null ? undefined : facetCache.peek(generation, key);
  if (kept) return { total: kept.total, facets: null };
  if (unfiltered(filters)) {
    // The total the last replay stored, without reading and sorting every facet for it.
    const [stored] = await sqlRows<{ count: number }>(
      db,
      sql`select g.count from gallery_counts g where g.facet = 'total' and g.value = ''`,
    );
    if (stored) return { total: stored.count, facets: null };
  }
  const [row] = await sqlRows<{ total: number }>(
    db,
    sql`select count(*)::int as total from gallery_screens s where ${where}`,
  );
  return { total: row?.total ?? 0, facets: null };
}

/** One page of current screens under the filters, with the total and (unless asked not to) the facets. */
/**
 * One page of current screens under the filters, with the total and (unless asked not to) the facets: by `page` of
 * whole grid rows, or by `cursor` (cursor.ts) `limit` at a time.
 */
export async function listScreens(db: Database, links: GalleryLinks, input: ScreensQuery): Promise<ScreensPage> {
  const chain = input.cursor === undefined ? null : readScreensCursor(input.cursor, input);
  if (chain && input.page !== undefined) {
    throw new ValidationError({ page: ["is not used with cursor: the cursor says where the next page starts"] });
  }
  const query: ScreensQuery = chain ? { ...input, ...chain.query } : input;
  const filters = await resolveFilters(db, query);
  const cols = input.cols ?? GALLERY_GRID.defaultCols;
  const byCursor = chain !== null || input.limit !== undefined;
  const pageSize = byCursor ? (input.limit ?? GALLERY_GRID.minPageScreens) : pageSizeFor(cols);
  const page = chain?.page ?? input.page ?? 1;
  const sort = query.sort ?? "newest";
  const where = screenConditions(filters);
  const listed = chain ? sql`${where} and ${afterScreen(sort, chain.after)}` : where;
  // One screen more than the page: whether another page follows.
  const window = { limit: pageSize + 1, offset: byCursor ? 0 : (page - 1) * pageSize };
  const [rows, counted] = await Promise.all([
    sqlRows<CardRow>(db, cardsQuery(listed, ORDER[sort], variantMatch(filters), window)),
    countScreens(db, filters, input.facets ?? true, where),
  ]);
  const shown = rows.slice(0, pageSize);
  const last = shown.at(-1);
  return {
    items: shown.map((row) => cardOf(row, links)),
    page,
    page_size: pageSize,
    cols,
    pages: Math.ceil(counted.total / pageSize),
    total: counted.total,
    sort,
    next_cursor: rows.length > pageSize && last ? writeScreensCursor(query, last.id, page + 1) : null,
    facets: counted.facets,
  };
}

type DetailRow = {
  id: number;
  page: string;
  title: string | null;
  page_type: string | null;
  page_type_label: string | null;
  status: "current" | "replaced" | "removed";
  replaced_by_id: number | null;
  current_id: number | null;
  run_id: number;
  retired_by_run_id: number | null;
  captured_at: string;
  app_id: number;
  app_slug: string;
  app_platform: "web";
  app_origin: string;
};

type VariantRow = {
  id: number;
  viewport: "desktop" | "mobile";
  lang: "ko" | "en";
  auth: boolean;
  mode: "light" | "dark" | null;
  title: string | null;
  url: string;
  image_type: CaptureImageType;
  image_width: number;
  image_height: number;
  image_size: number;
  image_sha256: string;
  run_id: number;
  capture_key: string;
  final_url: string | null;
  http_status: number | null;
  build_versions: string[] | null;
  captured_at: string;
};

type TermRow = { kind: GalleryTermKind; slug: string; label: string; generic: boolean; uses: number };

/** A screen by id, whatever its status: its variants with their evidence, its terms, and its page's history. */
export async function getScreen(db: Database, links: GalleryLinks, id: number): Promise<GalleryScreenDetail> {
  const [screen] = await sqlRows<DetailRow>(
    db,
    sql`
      select s.id, s.page, s.title, s.page_type, pt.label as page_type_label, s.status, s.replaced_by_id,
        cur.id as current_id, s.run_id, s.retired_by_run_id, ${sql.raw(isoSql("s.captured_at"))} as captured_at,
        a.id as app_id, a.slug as app_slug, a.platform as app_platform, a.origin as app_origin
      from gallery_screens s
      join gallery_apps a on a.id = s.app_id
      left join gallery_terms pt on pt.kind = 'page_type' and pt.slug = s.page_type
      left join gallery_screens cur on cur.app_id = s.app_id and cur.page = s.page and cur.status = 'current'
      where s.id = ${id}`,
  );
  if (!screen) throw new DomainError("not_found", `There is no gallery screen ${id}.`);
  const [variants, terms, history] = await Promise.all([
    sqlRows<VariantRow>(
      db,
      sql`
        select v.id, v.viewport, v.lang, v.auth, v.mode, v.title, v.url, v.image_type, v.image_width,
          v.image_height, v.image_size, v.image_sha256, c.run_id, c.key as capture_key, c.final_url, c.http_status,
          r.build_versions, ${sql.raw(isoSql("v.captured_at"))} as captured_at
        from gallery_screen_variants v
        join collect_captures c on c.id = v.capture_id
        join collect_runs r on r.id = c.run_id
        where v.screen_id = ${id}
        order by ${VARIANT_ORDER}`,
    ),
    sqlRows<TermRow>(
      db,
      sql`
        select t.kind, t.slug, t.label, t.generic, st.uses from gallery_screen_terms st
        join gallery_terms t on t.id = st.term_id
        where st.screen_id = ${id}
        order by st.uses desc, t.slug COLLATE "C"`,
    ),
    sqlRows<{ id: number; run_id: number; status: "current" | "replaced" | "removed"; captured_at: string }>(
      db,
      sql`
        select h.id, h.run_id, h.status, ${sql.raw(isoSql("h.captured_at"))} as captured_at
        from gallery_screens h
        where h.app_id = ${screen.app_id} and h.page = ${screen.page}
        order by h.run_id, h.id`,
    ),
  ]);
  const ofKind = (kind: GalleryTermKind) =>
    terms.filter((term) => term.kind === kind).map(({ slug, label, uses }) => ({ slug, label, uses }));
  return {
    id: screen.id,
    app: { id: screen.app_id, slug: screen.app_slug, platform: screen.app_platform, origin: screen.app_origin },
    page: screen.page,
    title: screen.title,
    page_type:
      screen.page_type === null ? null : { slug: screen.page_type, label: screen.page_type_label ?? screen.page_type },
    status: screen.status,
    current: screen.status === "current",
    replaced_by_id: screen.replaced_by_id,
    current_id: screen.current_id,
    run_id: screen.run_id,
    retired_by_run_id: screen.retired_by_run_id,
    captured_at: screen.captured_at,
    variants: variants.map((variant) => ({
      id: variant.id,
      viewport: variant.viewport,
      lang: variant.lang,
      signed_in: variant.auth,
      mode: variant.mode,
      title: variant.title,
      url: variant.url,
      image: {
        url: imageUrl(links, screen.id, variant.id),
        type: variant.image_type,
        width: variant.image_width,
        height: variant.image_height,
        size: variant.image_size,
        sha256: variant.image_sha256,
      },
      evidence: {
        run_id: variant.run_id,
        capture_key: variant.capture_key,
        final_url: variant.final_url,
        http_status: variant.http_status,
        build_versions: variant.build_versions,
        captured_at: variant.captured_at,
      },
    })),
    page_types: ofKind("page_type"),
    patterns: ofKind("pattern"),
    elements: ofKind("element"),
    components: ofKind("component"),
    colors: ofKind("color"),
    fonts: terms
      .filter((term) => term.kind === "font")
      .map(({ slug, label, uses, generic }) => ({ slug, label, uses, generic })),
    history,
  };
}

/** One app with its current screens (by page) and its current flows, each step its page's current screen. */
export async function getApp(db: Database, links: GalleryLinks, id: number) {
  const [app] = await sqlRows<{
    id: number;
    slug: string;
    platform: "web";
    origin: string;
    first_run_id: number;
    last_run_id: number;
  }>(
    db,
    sql`select a.id, a.slug, a.platform, a.origin, a.first_run_id, a.last_run_id from gallery_apps a where a.id = ${id}`,
  );
  if (!app) throw new DomainError("not_found", `There is no gallery app ${id}.`);
  const [screens, steps, terms] = await Promise.all([
    sqlRows<CardRow>(
      db,
      cardsQuery(sql`s.app_id = ${id} and s.status = 'current'`, sql`(s.page COLLATE "C"), s.id`, TRUE),
    ),
    sqlRows<{
      flow_id: number;
      kind: "declared" | "walk";
      slug: string;
      name: string | null;
      auth: boolean | null;
      viewport: CollectViewport | null;
      lang: CollectLang | null;
      run_id: number;
      position: number;
      flow_step: number | null;
      screen_id: number;
    }>(
      db,
      sql`
        select f.id as flow_id, f.kind, f.slug, f.name, f.auth, f.viewport, f.lang, f.run_id, fs.position, fs.flow_step,
          cur.id as screen_id
        from gallery_flows f
        join gallery_flow_steps fs on fs.flow_id = f.id
        join gallery_screens recorded on recorded.id = fs.screen_id
        join gallery_screens cur on cur.app_id = recorded.app_id and cur.page = recorded.page
          and cur.status = 'current'
        where f.app_id = ${id} and f.status = 'current'
        order by f.kind, f.slug COLLATE "C", fs.position`,
    ),
    sqlRows<TermRow>(
      db,
      sql`
        select t.kind, t.slug, t.label, t.generic, at.uses from gallery_app_terms at
        join gallery_terms t on t.id = at.term_id
        where at.app_id = ${id}
        order by at.uses desc, t.slug COLLATE "C"`,
    ),
  ]);
  const cards = screens.map((row) => cardOf(row, links));
  const byId = new Map(cards.map((card) => [card.id, card]));
  const flows = new Map<number, ReturnType<typeof flowOf>>();
  function flowOf(row: (typeof steps)[number]) {
    return {
      id: row.flow_id,
      kind: row.kind,
      slug: row.slug,
      name: row.name,
      signed_in: row.auth,
      viewport: row.viewport,
      lang: row.lang,
      run_id: row.run_id,
      steps: [] as { position: number; flow_step: number | null; screen: GalleryScreenCard }[],
    };
  }
  for (const row of steps) {
    const flow = flows.get(row.flow_id) ?? flowOf(row);
    flows.set(row.flow_id, flow);
    const screen = byId.get(row.screen_id);
    if (screen) flow.steps.push({ position: row.position, flow_step: row.flow_step, screen });
  }
  return {
    ...app,
    screen_count: cards.length,
    fonts: terms
      .filter((term) => term.kind === "font")
      .map(({ slug, label, uses, generic }) => ({ slug, label, uses, generic })),
    colors: terms.filter((term) => term.kind === "color").map(({ slug, label, uses }) => ({ slug, label, uses })),
    flows: [...flows.values()],
    screens: cards,
  };
}

/** The unfiltered facets: as the last replay stored them, or counted now if none has. */
async function unfilteredRows(db: Database): Promise<FacetRow[]> {
  return (await storedCounts(db)) ?? (await sqlRows<FacetRow>(db, facetsQuery(NO_FILTERS)));
}

const byCount = (a: FacetRow, b: FacetRow) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

export async function listPatterns(db: Database) {
  const rows = (await unfilteredRows(db)).filter((row) => row.facet === "patterns" && row.count > 0).sort(byCount);
  return {
    items: rows.map(({ value, label, count }) => ({
      slug: value,
      label,
      definition: PATTERN_DEFINITIONS[value] ?? null,
      count,
    })),
    total: rows.length,
  };
}

/** Each kind's terms with their counts: page types as the `kind` filter counts them, the rest as their facets. */
export async function taxonomy(db: Database, kind: GalleryTermKind | undefined) {
  const kinds = kind ? [kind] : (Object.keys(taxonomyLists) as GalleryTermKind[]);
  const [rows, generic] = await Promise.all([
    unfilteredRows(db),
    kinds.includes("font")
      ? sqlRows<{ slug: string }>(db, sql`select t.slug from gallery_terms t where t.kind = 'font' and t.generic`)
      : [],
  ]);
  const genericFonts = new Set(generic.map((row) => row.slug));
  const facetOf = (each: GalleryTermKind) =>
    each === "page_type" ? "kind" : (Object.entries(termFilters).find(([, termKind]) => termKind === each)?.[0] ?? "");
  return Object.fromEntries(
    kinds.map((each) => [
      taxonomyLists[each],
      rows
        .filter((row) => row.facet === facetOf(each) && row.count > 0)
        .sort(byCount)
        .map(({ value, label, count }) =>
          each === "font"
            ? { slug: value, label, count, generic: genericFonts.has(value) }
            : { slug: value, label, count },
        ),
    ]),
  );
}

/** A variant's image as stored: the route serves it from the artifact store. */
export async function variantImage(db: Database, screenId: number, variantId: number) {
  const [image] = await sqlRows<{
    image_key: string;
    image_sha256: string;
    image_size: number;
    image_type: CaptureImageType;
    captured_at: string;
  }>(
    db,
    sql`
      select v.image_key, v.image_sha256, v.image_size, v.image_type, ${sql.raw(isoSql("v.captured_at"))} as captured_at
      from gallery_screen_variants v where v.id = ${variantId} and v.screen_id = ${screenId}`,
  );
  if (!image) throw new DomainError("not_found", `Gallery screen ${screenId} has no variant ${variantId}.`);
  return image;
}
