import type { Database } from "@shelf/db";
import type { CaptureImageType, GalleryTermKind } from "@shelf/db/enums";
import { type SQL, sql } from "drizzle-orm";
import { searchQuery } from "../../design-gallery/search";
import { DomainError, type FieldErrors, ValidationError } from "../../errors";
import { isoSql, sqlRows } from "../../sql-text";
import { PATTERN_DEFINITIONS } from "./pattern-definitions";
import {
  type FacetName,
  type FacetValue,
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
export type GalleryLinks = { baseUrl: string };

export const imagePath = (screenId: number, variantId: number) =>
  `/api/v1/screens/${screenId}/variants/${variantId}/image`;

const imageUrl = (links: GalleryLinks, screenId: number, variantId: number) =>
  new URL(imagePath(screenId, variantId), links.baseUrl).toString();

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
    for (const word of f.q.words) parts.push(sql`strpos(s.search_text, ${word}) > 0`);
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
  if (hasVariantFilter(f)) {
    parts.push(sql`exists (select 1 from gallery_screen_variants v where v.screen_id = s.id and ${variantMatch(f)})`);
  }
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
  return sql`
    select s.id, s.page, s.title, s.page_type, ${sql.raw(isoSql("s.captured_at"))} as captured_at,
      a.id as app_id, a.slug as app_slug, a.platform as app_platform,
      (select count(*)::int from gallery_screen_variants c where c.screen_id = s.id) as variant_count,
      th.id as variant_id, th.viewport, th.lang, th.auth, th.mode, th.image_type, th.image_width, th.image_height,
      th.image_size, th.image_sha256
    from gallery_screens s
    join gallery_apps a on a.id = s.app_id
    cross join lateral (
      select v.id, v.viewport, v.lang, v.auth, v.mode, v.image_type, v.image_width, v.image_height, v.image_size,
        v.image_sha256
      from gallery_screen_variants v where v.screen_id = s.id and ${thumbnail}
      order by ${VARIANT_ORDER} limit 1
    ) th
    where ${where}
    order by ${order}
    ${page ? sql`limit ${page.limit} offset ${page.offset}` : sql``}`;
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

const TERM_FACETS: Record<string, FacetName> = {
  pattern: "patterns",
  component: "components",
  element: "elements",
  font: "fonts",
  color: "colors",
};

/**
 * The total and every facet in one statement. `b` is the screens every facet keeps (words and terms), each with
 * whether it passes the platform, app and kind filters; `bv` adds, from its variants, whether it passes the variant
 * filters and, for each viewport, language and mode, whether it would with that value instead. A single-valued
 * facet counts `bv` under the other filters, grouped by its value; the term facets count the terms of the screens
 * that pass every filter.
 */
function facetsQuery(f: ResolvedFilters): SQL {
  const variantFacet = (column: "viewport" | "lang" | "mode", value: string) =>
    sql`bool_or(v.${sql.raw(column)} = ${value} and ${variantMatch(f, column)})`;
  const placed = sql`bv.platform_ok and bv.app_ok and bv.kind_ok`;
  const countWhen = (facet: string, value: string, flag: string) =>
    sql`select ${facet}::text, ${value}::text, ${value}::text, count(*)::int from bv where bv.${sql.raw(flag)} and ${placed}`;
  return sql`
    with b as (
      select s.id, s.page_type, a.slug as app_slug, a.platform,
        ${platformMatch(f)} as platform_ok, ${appMatch(f)} as app_ok, ${kindMatch(f)} as kind_ok
      from gallery_screens s join gallery_apps a on a.id = s.app_id
      where ${and(alwaysConditions(f))}
    ),
    bv as (
      select b.id, b.page_type, b.app_slug, b.platform, b.platform_ok, b.app_ok, b.kind_ok,
        bool_or(${variantMatch(f)}) as variant_ok,
        ${variantFacet("viewport", "desktop")} as desktop, ${variantFacet("viewport", "mobile")} as mobile,
        ${variantFacet("lang", "ko")} as ko, ${variantFacet("lang", "en")} as en,
        ${variantFacet("mode", "light")} as light, ${variantFacet("mode", "dark")} as dark
      from b join gallery_screen_variants v on v.screen_id = b.id
      group by b.id, b.page_type, b.app_slug, b.platform, b.platform_ok, b.app_ok, b.kind_ok
    ),
    hits as (select bv.id from bv where bv.variant_ok and ${placed})
    select 'total' as facet, '' as value, '' as label, count(*)::int as count from hits
    union all
    select 'kind', bv.page_type, min(pt.label), count(*)::int from bv
      left join gallery_terms pt on pt.kind = 'page_type' and pt.slug = bv.page_type
      where bv.page_type is not null and bv.variant_ok and bv.platform_ok and bv.app_ok group by bv.page_type
    union all
    select 'app', bv.app_slug, bv.app_slug, count(*)::int from bv
      where bv.variant_ok and bv.platform_ok and bv.kind_ok group by bv.app_slug
    union all
    select 'platform', bv.platform, bv.platform, count(*)::int from bv
      where bv.variant_ok and bv.app_ok and bv.kind_ok group by bv.platform
    union all ${countWhen("viewport", "desktop", "desktop")}
    union all ${countWhen("viewport", "mobile", "mobile")}
    union all ${countWhen("lang", "ko", "ko")}
    union all ${countWhen("lang", "en", "en")}
    union all ${countWhen("mode", "light", "light")}
    union all ${countWhen("mode", "dark", "dark")}
    union all
    select t.kind, t.slug, min(t.label), count(*)::int from gallery_screen_terms st
      join gallery_terms t on t.id = st.term_id
      where st.screen_id in (select hits.id from hits) and t.kind <> 'page_type'
      group by t.kind, t.slug`;
}

function facetsOf(rows: FacetRow[]): { total: number; facets: ScreenFacets } {
  const facets = Object.fromEntries(
    (["platform", "app", "kind", "viewport", "lang", "mode", ...Object.values(TERM_FACETS)] as FacetName[]).map(
      (name) => [name, [] as FacetValue[]],
    ),
  ) as ScreenFacets;
  let total = 0;
  for (const row of rows) {
    if (row.facet === "total") {
      total = row.count;
      continue;
    }
    const name = (TERM_FACETS[row.facet] ?? row.facet) as FacetName;
    if (row.count > 0) facets[name].push({ value: row.value, label: row.label ?? row.value, count: row.count });
  }
  for (const list of Object.values(facets)) {
    list.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  }
  return { total, facets };
}

/** One page of current screens under the filters, with the total and (unless asked not to) the facets. */
export async function listScreens(db: Database, links: GalleryLinks, input: ScreensQuery): Promise<ScreensPage> {
  const filters = await resolveFilters(db, input);
  const cols = input.cols ?? GALLERY_GRID.defaultCols;
  const pageSize = pageSizeFor(cols);
  const page = input.page ?? 1;
  const sort = input.sort ?? "newest";
  const withFacets = input.facets ?? true;
  const where = screenConditions(filters);
  const [rows, counted] = await Promise.all([
    sqlRows<CardRow>(
      db,
      cardsQuery(where, ORDER[sort], variantMatch(filters), { limit: pageSize, offset: (page - 1) * pageSize }),
    ),
    withFacets
      ? sqlRows<FacetRow>(db, facetsQuery(filters)).then(facetsOf)
      : sqlRows<{ total: number }>(db, sql`select count(*)::int as total from gallery_screens s where ${where}`).then(
          ([row]) => ({ total: row?.total ?? 0, facets: null }),
        ),
  ]);
  return {
    items: rows.map((row) => cardOf(row, links)),
    page,
    page_size: pageSize,
    cols,
    pages: Math.ceil(counted.total / pageSize),
    total: counted.total,
    sort,
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
      run_id: number;
      position: number;
      flow_step: number | null;
      screen_id: number;
    }>(
      db,
      sql`
        select f.id as flow_id, f.kind, f.slug, f.name, f.auth, f.run_id, fs.position, fs.flow_step,
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

type CountRow = { kind: GalleryTermKind; slug: string; label: string; generic: boolean; count: number };

/** Terms with the number of current screens having each (those none has left out), most first. */
async function termCounts(db: Database, kind: GalleryTermKind | null): Promise<CountRow[]> {
  return sqlRows<CountRow>(
    db,
    sql`
      select t.kind, t.slug, t.label, t.generic, count(*)::int as count
      from gallery_terms t
      join gallery_screen_terms st on st.term_id = t.id
      join gallery_screens s on s.id = st.screen_id and s.status = 'current'
      ${kind === null ? sql`` : sql`where t.kind = ${kind}`}
      group by t.id
      order by count(*) desc, t.slug COLLATE "C"`,
  );
}

export async function listPatterns(db: Database) {
  const rows = await termCounts(db, "pattern");
  return {
    items: rows.map(({ slug, label, count }) => ({
      slug,
      label,
      definition: PATTERN_DEFINITIONS[slug] ?? null,
      count,
    })),
    total: rows.length,
  };
}

export async function taxonomy(db: Database, kind: GalleryTermKind | undefined) {
  const rows = await termCounts(db, kind ?? null);
  const kinds = kind ? [kind] : (Object.keys(taxonomyLists) as GalleryTermKind[]);
  return Object.fromEntries(
    kinds.map((each) => [
      taxonomyLists[each],
      rows
        .filter((row) => row.kind === each)
        .map(({ slug, label, count, generic }) =>
          each === "font" ? { slug, label, count, generic } : { slug, label, count },
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
