import type { Database } from "@shelf/db";
import type { CaptureImageType, CollectLang, CollectViewport, GalleryTermKind } from "@shelf/db/enums";
import { sql } from "drizzle-orm";
import {
  type CardRow,
  cardOf,
  cardsQuery,
  type GalleryLinks,
  imageUrl,
  ORDER,
  VARIANT_ORDER,
} from "../../design-gallery/query/cards";
import { countScreens, unfilteredRows } from "../../design-gallery/query/counts";
import type { FacetRow } from "../../design-gallery/query/facets";
import { resolveFilters, screenConditions, TRUE, variantMatch } from "../../design-gallery/query/filters";
import { DomainError, ValidationError } from "../../errors";
import { type GalleryScreenCard, type ScreensPage, termFilters } from "../../schemas/gallery-screens";
import { isoSql, sqlRows } from "../../sql-text";
import { afterScreen, readScreensCursor, writeScreensCursor } from "./cursor";
import { PATTERN_DEFINITIONS } from "./pattern-definitions";
import { GALLERY_GRID, type GalleryScreenDetail, pageSizeFor, type ScreensQuery, taxonomyLists } from "./schemas";

/*
 * The gallery's reads (schema: packages/db/src/schema/gallery.ts, whose header maps each filter to its index). Lists
 * show current screens only; a screen by id is shown whatever its status, so history stays reachable.
 *
 * The screens list is at most three statements: the names its filters give are looked up first (unknown ones are 422,
 * never an empty list), then the page and either its total or, with facets, one statement that counts the total and
 * every facet over the same filtered set. What each step runs is in design-gallery/query/ (filters, cards, facets and
 * counts); this file composes the answers the routes give.
 */

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

/**
 * The terms a screen or an app uses, most used first. Both link tables (`gallery_screen_terms`,
 * `gallery_app_terms`) count a term's uses the same way, so one query reads either.
 */
function termsOf(db: Database, owner: "screen" | "app", id: number): Promise<TermRow[]> {
  const link = sql.identifier(`gallery_${owner}_terms`);
  const ownerId = sql.identifier(`${owner}_id`);
  return sqlRows<TermRow>(
    db,
    sql`
      select t.kind, t.slug, t.label, t.generic, link.uses from ${link} link
      join gallery_terms t on t.id = link.term_id
      where link.${ownerId} = ${id}
      order by link.uses desc, t.slug COLLATE "C"`,
  );
}

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
    termsOf(db, "screen", id),
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
    termsOf(db, "app", id),
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
