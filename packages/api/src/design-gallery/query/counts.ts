import type { Database, Executor } from "@shelf/db";
import { type SQL, sql } from "drizzle-orm";
import { readApiEnv } from "../../env";
import type { ScreenFacets, ScreensPage } from "../../schemas/gallery-screens";
import { sqlRows } from "../../sql-text";
import { FacetCache } from "./facet-cache";
import { type FacetRow, facetsOf, facetsQuery } from "./facets";
import { NO_FILTERS, type ResolvedFilters, unfiltered } from "./filters";

/*
 * A screens list's total and facets: stored for no filter at all (gallery_counts, which the replay rewrites after
 * its writes), kept per gallery generation for the filters in use (facet-cache.ts), or counted now.
 */

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

/** The unfiltered facets: as the last replay stored them, or counted now if none has. */
export async function unfilteredRows(db: Database): Promise<FacetRow[]> {
  return (await storedCounts(db)) ?? (await sqlRows<FacetRow>(db, facetsQuery(NO_FILTERS)));
}

type Counted = { total: number; facets: ScreenFacets };

let facetCacheBytes: number | undefined;
/** The facets of the filters in use, per gallery generation (facet-cache.ts). */
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
export async function countScreens(
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
