import { type SQL, sql } from "drizzle-orm";
import {
  type FacetName,
  type FacetValue,
  facetNames,
  type ScreenFacets,
  termFilters,
} from "../../schemas/gallery-screens";
import { matchingMask } from "../variant-mask";
import { alwaysConditions, and, appMatch, kindMatch, type ResolvedFilters, TRUE } from "./filters";

/* The statement that counts a screens list's total and every facet at once, and the facets its rows make. */

export type FacetRow = { facet: string; value: string; label: string; count: number };

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

export function facetsOf(rows: FacetRow[]): { total: number; facets: ScreenFacets } {
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
