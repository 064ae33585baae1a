import http from "node:http";
import postgres from "postgres";

/*
 * The bare limit of this machine for GET /api/v1/screens, written apart from the project: none of its code, only
 * node:http, postgres.js and SQL, for the same answer (the bench checks it byte for byte first). The leanest SQL we
 * know for it, which is the gallery's own plan: names looked up in one statement; the page of screens from the
 * screens table by its filters (the variant filters as one bit mask, words by their two-character pieces under a
 * GIN index, then the text), each card's thumbnail by a lateral lookup; the unfiltered facets as the last replay
 * stored them, filtered facets counted in one statement over the filtered set. No validation beyond what the
 * scenarios send, no rate limit, no headers beyond type and length.
 */

// The app's pool size, and JIT off as the app sets it: compiling a facets statement costs more than running it.
// Unprepared, as the app sends these statements: a generic plan of a statement whose best plan depends on its
// parameters (which pattern, which words) is many times slower.
const sql = postgres(process.env.DATABASE_URL as string, {
  max: 10,
  prepare: false,
  onnotice: () => {},
  connection: { jit: "off" },
});
const baseUrl = (process.env.SHELF_DESIGN_URL as string).replace(/\/+$/, "");

const LIST_FILTERS = {
  patterns: "pattern",
  components: "component",
  elements: "element",
  fonts: "font",
  colors: "color",
};
const FACETS = [
  "platform",
  "app",
  "kind",
  "viewport",
  "lang",
  "mode",
  "patterns",
  "components",
  "elements",
  "fonts",
  "colors",
];
const VIEWPORTS = ["desktop", "mobile"];
const LANGS = ["ko", "en"];
const MODES = ["light", "dark", null];

/** Bit of a (viewport, language, mode) state in gallery_screens.variant_mask. */
const bit = (viewport: string, lang: string, mode: string | null) =>
  1 << ((VIEWPORTS.indexOf(viewport) * 2 + LANGS.indexOf(lang)) * 3 + MODES.indexOf(mode));
function mask(want: { viewport: string | null; lang: string | null; mode: string | null }): number {
  let bits = 0;
  for (const viewport of VIEWPORTS)
    for (const lang of LANGS)
      for (const mode of MODES)
        if (
          (!want.viewport || want.viewport === viewport) &&
          (!want.lang || want.lang === lang) &&
          (!want.mode || want.mode === mode)
        )
          bits |= bit(viewport, lang, mode);
  return bits;
}

function slug(kind: string, name: string): string {
  const text = name.trim().toLowerCase();
  if (kind === "font") return text.replace(/\s+/g, " ");
  if (kind === "color") return /^[0-9a-f]{6}([0-9a-f]{2})?$/.test(text) ? `#${text}` : text;
  return text.replace(/\s+/g, "-");
}

function words(q: string): { words: string[]; grams: string[] } {
  const list = [
    ...new Set(
      q
        .normalize("NFKC")
        .toLowerCase()
        .match(/[\p{L}\p{M}\p{N}]+/gu) ?? [],
    ),
  ];
  const grams = new Set<string>();
  for (const word of list) {
    const chars = Array.from(word);
    if (chars.length === 1) grams.add(word);
    for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i] + (chars[i + 1] as string));
  }
  return { words: list, grams: [...grams].sort() };
}

const ORDER: Record<string, string> = {
  newest: "s.captured_at desc, s.id desc",
  oldest: "s.captured_at, s.id",
  name: `(coalesce(s.title, s.page) COLLATE "C"), s.id`,
};

type Filters = {
  platform: string | null;
  appId: number | null;
  kind: string | null;
  viewport: string | null;
  lang: string | null;
  mode: string | null;
  termIds: number[];
  q: { words: string[]; grams: string[] } | null;
};

/** The list's filters from the query: names turned into term and app ids (one statement), the search's words. */
async function filtersOf(query: URLSearchParams): Promise<Filters> {
  const lists: Record<string, string[]> = {};
  for (const name of Object.keys(LIST_FILTERS)) {
    lists[name] = [
      ...new Set(
        query
          .getAll(name)
          .flatMap((v) => v.split(","))
          .map((v) => v.trim())
          .filter(Boolean),
      ),
    ];
  }
  const wanted: [string, string][] = Object.entries(LIST_FILTERS).flatMap(([name, kind]) =>
    (lists[name] ?? []).map((n): [string, string] => [kind, slug(kind, n)]),
  );
  const kindParam = query.get("kind");
  if (kindParam !== null) wanted.push(["page_type", slug("page_type", kindParam)]);
  const app = query.get("app")?.trim().toLowerCase() ?? null;
  const found: { kind: string; slug: string; id: number }[] =
    wanted.length > 0 || app !== null
      ? await sql<{ kind: string; slug: string; id: number }[]>`
          select t.kind, t.slug, t.id from gallery_terms t
            where (t.kind, t.slug) in (select * from unnest(${wanted.map((w) => w[0])}::text[], ${wanted.map((w) => w[1])}::text[]))
          union all select 'app', a.slug, a.id from gallery_apps a where a.slug = ${app}`
      : [];
  const id = (kind: string, value: string) => found.find((row) => row.kind === kind && row.slug === value)?.id;
  const q = query.get("q")?.trim() ? words(query.get("q") as string) : null;
  return {
    platform: query.get("platform"),
    appId: app === null ? null : (id("app", app) ?? null),
    kind: kindParam === null ? null : slug("page_type", kindParam),
    viewport: query.get("viewport"),
    lang: query.get("lang"),
    mode: query.get("mode"),
    termIds: [
      ...new Set(wanted.filter(([kind]) => kind !== "page_type").map(([kind, value]) => id(kind, value) as number)),
    ],
    q,
  };
}

/** The conditions of the filters: those every count keeps (`always`), each placement's, and the whole `where`. */
function conditionsOf(f: Filters) {
  const always = [sql`s.status = 'current'`];
  if (f.q) {
    always.push(sql`s.search_grams @> ${f.q.grams}::text[]`);
    for (const word of f.q.words) if (Array.from(word).length > 2) always.push(sql`strpos(s.search_text, ${word}) > 0`);
  }
  for (const term of f.termIds) {
    always.push(sql`exists (select 1 from gallery_screen_terms st where st.screen_id = s.id and st.term_id = ${term})`);
  }
  const platformOk =
    f.platform === null
      ? sql`true`
      : sql`s.app_id in (select pa.id from gallery_apps pa where pa.platform = ${f.platform})`;
  const appOk = f.appId === null ? sql`true` : sql`s.app_id = ${f.appId}`;
  const kindOk = f.kind === null ? sql`true` : sql`s.page_type = ${f.kind}`;
  const variantFiltered = f.viewport !== null || f.lang !== null || f.mode !== null;
  const where = [...always];
  if (f.platform !== null) where.push(platformOk);
  if (f.appId !== null) where.push(appOk);
  if (f.kind !== null) where.push(kindOk);
  if (variantFiltered) where.push(sql`(s.variant_mask & ${mask(f)}) <> 0`);
  return { always, platformOk, appOk, kindOk, variantFiltered, where };
}

const joined = (parts: postgres.PendingQuery<postgres.Row[]>[]) =>
  parts.reduce((all, part, index) => (index === 0 ? part : sql`${all} and ${part}`));

/** The page's cards, each with its thumbnail (the first variant in the filters' states), one more than the page. */
function cardsQuery(
  f: Filters,
  where: postgres.PendingQuery<postgres.Row[]>[],
  sort: string,
  size: number,
  page: number,
) {
  const thumbnail = joined([
    sql`true`,
    ...(f.viewport ? [sql`v.viewport = ${f.viewport}`] : []),
    ...(f.lang ? [sql`v.lang = ${f.lang}`] : []),
    ...(f.mode ? [sql`v.mode = ${f.mode}`] : []),
  ]);
  return sql`
    select coalesce(json_agg(json_build_object(
      'id', s.id, 'app', json_build_object('id', a.id, 'slug', a.slug, 'platform', a.platform),
      'page', s.page, 'title', s.title, 'page_type', s.page_type,
      'captured_at', to_char(s.captured_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'variant_count', (select count(*)::int from gallery_screen_variants c where c.screen_id = s.id),
      'thumbnail', json_build_object('variant_id', th.id, 'viewport', th.viewport, 'lang', th.lang,
        'signed_in', th.auth, 'mode', th.mode, 'image', json_build_object(
          'url', ${baseUrl} || '/api/v1/screens/' || s.id || '/variants/' || th.id || '/image',
          'type', th.image_type, 'width', th.image_width, 'height', th.image_height, 'size', th.image_size,
          'sha256', th.image_sha256))
    ) order by ${sql.unsafe(ORDER[sort] as string)}), '[]') as items
    from (
      select s.id, s.app_id, s.page, s.title, s.page_type, s.captured_at from gallery_screens s
      where ${joined(where)} order by ${sql.unsafe(ORDER[sort] as string)} limit ${size + 1} offset ${(page - 1) * size}
    ) s
    join gallery_apps a on a.id = s.app_id
    cross join lateral (
      select v.id, v.viewport, v.lang, v.auth, v.mode, v.image_type, v.image_width, v.image_height, v.image_size, v.image_sha256
      from gallery_screen_variants v where v.screen_id = s.id and ${thumbnail}
      order by v.viewport, v.lang <> 'ko', v.auth, v.mode is null, v.mode = 'dark', v.id limit 1
    ) th`;
}

/** The facets' counts: kept ones when nothing filters, the total alone without facets, else counted in one statement. */
function countsQuery(f: Filters, withFacets: boolean) {
  const { always, platformOk, appOk, kindOk, variantFiltered, where } = conditionsOf(f);
  const unfiltered = !f.platform && f.appId === null && !f.kind && !variantFiltered && f.termIds.length === 0 && !f.q;
  let counts: Promise<{ facet: string; value: string; label: string; count: number }[]>;
  if (unfiltered) {
    counts = sql`select g.facet, g.value, g.label, g.count from gallery_counts g`;
  } else if (!withFacets) {
    counts = sql`select 'total' as facet, '' as value, '' as label, count(*)::int as count from gallery_screens s where ${joined(where)}`;
  } else {
    const flag = (column: "viewport" | "lang" | "mode", value: string) =>
      sql`(s.variant_mask & ${mask({ ...f, [column]: value })}) <> 0`;
    const placed = sql`b.platform_ok and b.app_ok and b.kind_ok`;
    const narrowed = f.q !== null || f.termIds.length > 0;
    const others = narrowed
      ? sql`select o.id from gallery_screens o where o.status = 'current' and not exists (select 1 from hits h where h.id = o.id)`
      : sql`select b.id from b where not (b.variant_ok and ${placed})`;
    counts = sql`
      with b as (
        select s.id, s.app_id, s.page_type, ${platformOk} as platform_ok, ${appOk} as app_ok, ${kindOk} as kind_ok,
          (s.variant_mask & ${mask(f)}) <> 0 as variant_ok,
          ${flag("viewport", "desktop")} as desktop, ${flag("viewport", "mobile")} as mobile,
          ${flag("lang", "ko")} as ko, ${flag("lang", "en")} as en,
          ${flag("mode", "light")} as light, ${flag("mode", "dark")} as dark
        from gallery_screens s where ${joined(always)}
      ),
      hits as (select b.id from b where b.variant_ok and ${placed}),
      kinds as (select b.page_type, count(*) filter (where b.variant_ok and b.platform_ok and b.app_ok)::int as count
        from b where b.page_type is not null group by b.page_type),
      apps as (select b.app_id, count(*) filter (where b.variant_ok and b.platform_ok and b.kind_ok)::int as count,
        count(*) filter (where b.variant_ok and b.app_ok and b.kind_ok)::int as platforms from b group by b.app_id),
      overall as (select count(*) filter (where b.variant_ok and ${placed})::int as total,
        count(*) filter (where b.desktop and ${placed})::int as desktop, count(*) filter (where b.mobile and ${placed})::int as mobile,
        count(*) filter (where b.ko and ${placed})::int as ko, count(*) filter (where b.en and ${placed})::int as en,
        count(*) filter (where b.light and ${placed})::int as light, count(*) filter (where b.dark and ${placed})::int as dark
        from b),
      most as (select (select total from overall) * 2 > (select c.count from gallery_counts c where c.facet = 'total' and c.value = '') as yes),
      counted as (
        select 'total' as facet, '' as value, null::int as ref, total as count from overall
        union all select 'kind', page_type, null, count from kinds
        union all select 'app', '', app_id, count from apps
        union all select 'platform', pa.platform, null, sum(apps.platforms)::int from apps join gallery_apps pa on pa.id = apps.app_id group by pa.platform
        union all select x.facet, x.value, null, x.count from overall cross join lateral (values ('viewport', 'desktop', overall.desktop),
          ('viewport', 'mobile', overall.mobile), ('lang', 'ko', overall.ko), ('lang', 'en', overall.en),
          ('mode', 'light', overall.light), ('mode', 'dark', overall.dark)) as x(facet, value, count)
        union all select 'term', '', st.term_id, count(*)::int from gallery_screen_terms st
          where not coalesce((select yes from most), false) and st.screen_id in (select id from hits) group by st.term_id
        union all select 'term', '', g.ref, (g.count - coalesce(other.count, 0))::int from gallery_counts g
          left join (select st.term_id, count(*)::int as count from gallery_screen_terms st where st.screen_id in (${others}) group by st.term_id) other
            on other.term_id = g.ref
          where coalesce((select yes from most), false) and g.facet in ('patterns', 'components', 'elements', 'fonts', 'colors')
      )
      select coalesce(case t.kind when 'pattern' then 'patterns' when 'component' then 'components' when 'element' then 'elements'
          when 'font' then 'fonts' when 'color' then 'colors' end, c.facet) as facet,
        coalesce(t.slug, a.slug, c.value) as value, coalesce(t.label, pt.label, a.slug, c.value) as label, c.count
      from counted c
      left join gallery_terms t on c.facet = 'term' and t.id = c.ref
      left join gallery_apps a on c.facet = 'app' and a.id = c.ref
      left join gallery_terms pt on c.facet = 'kind' and pt.kind = 'page_type' and pt.slug = c.value
      where c.facet <> 'term' or t.kind <> 'page_type'`;
  }
  return counts;
}

async function screens(query: URLSearchParams): Promise<string> {
  const f = await filtersOf(query);
  const cols = Number(query.get("cols") ?? 4);
  const size = cols * Math.ceil(24 / cols);
  const page = Number(query.get("page") ?? 1);
  const sort = query.get("sort") ?? "newest";
  const withFacets = query.get("facets") !== "false";

  const cards = cardsQuery(f, conditionsOf(f).where, sort, size, page);
  const counts = countsQuery(f, withFacets);
  const [[page1], rows] = await Promise.all([cards, counts]);
  let total = 0;
  const facets: Record<string, { value: string; label: string; count: number }[]> = Object.fromEntries(
    FACETS.map((n) => [n, []]),
  );
  for (const row of rows) {
    if (row.facet === "total") total = row.count;
    else if (row.count > 0) facets[row.facet]?.push({ value: row.value, label: row.label, count: row.count });
  }
  for (const list of Object.values(facets))
    list.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  // One card more than the page was read: whether a next page follows, and where its cursor starts.
  const fetched = (page1?.items ?? []) as { id: number }[];
  const shown = fetched.slice(0, size);
  const last = shown.at(-1);
  const next =
    fetched.length > size && last
      ? JSON.stringify(
          Buffer.from(JSON.stringify({ query: carriedQuery(query), after: last.id, page: page + 1 })).toString(
            "base64url",
          ),
        )
      : "null";
  return `{"items":${JSON.stringify(shown)},"page":${page},"page_size":${size},"cols":${cols},"pages":${Math.ceil(total / size)},"total":${total},"sort":"${sort}","next_cursor":${next},"facets":${withFacets ? JSON.stringify(facets) : "null"}}`;
}

/**
 * The query a next-page cursor carries, as the screens list writes it: the filters and sort given, in the list's
 * field order, empty ones left out, name lists split at commas, trimmed, without repeats and sorted.
 */
function carriedQuery(query: URLSearchParams): Record<string, string | string[]> {
  const carried: Record<string, string | string[]> = {};
  for (const field of ["platform", "app", "q", "sort", "viewport", "lang", "mode", "kind"]) {
    const value = query.get(field);
    if (value) carried[field] = value;
  }
  for (const field of ["patterns", "components", "elements", "fonts", "colors"]) {
    const names = [
      ...new Set(
        query
          .getAll(field)
          .flatMap((text) => text.split(","))
          .map((name) => name.trim())
          .filter(Boolean),
      ),
    ];
    if (names.length > 0) carried[field] = names.sort();
  }
  return carried;
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://baseline");
  if (url.pathname !== "/api/v1/screens") {
    res.writeHead(404).end();
    return;
  }
  try {
    const body = await screens(url.searchParams);
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  } catch (error) {
    console.error(error);
    res.writeHead(500).end();
  }
});
server.listen(0, "127.0.0.1", () => {
  console.log(`gallery baseline listening on ${(server.address() as { port: number }).port}`);
});
