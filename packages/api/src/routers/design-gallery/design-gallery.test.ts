import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { asc, eq, inArray, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScreensPage } from "../../schemas/gallery-screens";
import { createTestDelivery } from "../../testing/delivery";
import { galleryApi, randomScreens, type ScreenSpec, seededRandom, seedRun } from "../../testing/gallery";
import { pageSizeFor } from "./schemas";

/*
 * The screens list against a brute-force filter of the same rows: a seeded random gallery of a few hundred screens
 * made by the real replay (two runs, so some screens are history), read back from the database, and filtered,
 * sorted, paged and counted here in plain JavaScript.
 */

const SEED = Number(process.env.SHELF_GALLERY_SEED ?? 20261123);
const SCREENS = 240;

let testDb: TestDatabase;
let request: ReturnType<typeof galleryApi>["request"];
let rows: Row[];
let vocabulary: Record<string, string[]>;
let screens: ScreenSpec[];
let delivery: Awaited<ReturnType<typeof createTestDelivery>>;

type Row = {
  id: number;
  app: string;
  platform: string;
  kind: string | null;
  name: string;
  capturedAt: string;
  words: string[];
  variants: { viewport: string; lang: string; mode: string | null }[];
  terms: Record<string, Set<string>>;
};

const TERM_KINDS = {
  patterns: "pattern",
  components: "component",
  elements: "element",
  fonts: "font",
  colors: "color",
};
type TermField = keyof typeof TERM_KINDS;
const SINGLE = ["platform", "app", "kind", "viewport", "lang", "mode"] as const;
type Single = (typeof SINGLE)[number];
type Filters = Partial<Record<Single, string>> & Partial<Record<TermField, string[]>> & { q?: string };

beforeAll(async () => {
  testDb = await createTestDatabase();
  delivery = await createTestDelivery();
  request = galleryApi(testDb.db, delivery).request;
  screens = randomScreens(SEED, SCREENS);
  await seedRun(testDb.db, delivery.store, screens);
  // A later run captures some pages again, changed, and finds a few gone: their first screens become history.
  const random = seededRandom(SEED + 1);
  const again: ScreenSpec[] = screens.flatMap((screen) => {
    const draw = random.next();
    if (draw < 0.15) return [{ ...screen, patterns: random.some(["empty-state", "tabs", "toast"], 2), at: 100_000 }];
    return draw < 0.2 ? [{ ...screen, gone: true }] : [];
  });
  await seedRun(testDb.db, delivery.store, again, { buildVersions: ["2026.11.2"] });
  rows = await readRows();
  vocabulary = {
    platform: [...new Set(rows.map((row) => row.platform))],
    app: [...new Set(rows.map((row) => row.app))],
    kind: [...new Set(rows.flatMap((row) => (row.kind ? [row.kind] : [])))],
    viewport: ["desktop", "mobile"],
    lang: ["ko", "en"],
    mode: ["light", "dark"],
    ...Object.fromEntries(
      Object.keys(TERM_KINDS).map((field) => [
        field,
        [...new Set(rows.flatMap((row) => [...(row.terms[field] ?? [])]))].sort(),
      ]),
    ),
  };
}, 120_000);
afterAll(() => testDb.drop());

/** The current screens as the database holds them: what the brute force filters. */
async function readRows(): Promise<Row[]> {
  const {
    galleryScreens: s,
    galleryApps: a,
    galleryScreenVariants: v,
    galleryScreenTerms: st,
    galleryTerms: t,
  } = schema;
  const screens = await testDb.db
    .select({
      id: s.id,
      app: a.slug,
      platform: a.platform,
      kind: s.pageType,
      title: s.title,
      page: s.page,
      capturedAt: s.capturedAt,
      searchText: s.searchText,
    })
    .from(s)
    .innerJoin(a, eq(a.id, s.appId))
    .where(eq(s.status, "current"))
    .orderBy(asc(s.id));
  const ids = screens.map((screen) => screen.id);
  const variants = await testDb.db
    .select({ screenId: v.screenId, viewport: v.viewport, lang: v.lang, mode: v.mode })
    .from(v)
    .where(inArray(v.screenId, ids));
  const terms = await testDb.db
    .select({ screenId: st.screenId, kind: t.kind, slug: t.slug })
    .from(st)
    .innerJoin(t, eq(t.id, st.termId))
    .where(inArray(st.screenId, ids));
  const fieldOf = Object.fromEntries(Object.entries(TERM_KINDS).map(([field, kind]) => [kind, field]));
  return screens.map((screen) => {
    const termSets: Record<string, Set<string>> = {};
    for (const term of terms.filter((row) => row.screenId === screen.id)) {
      const field = fieldOf[term.kind];
      if (!field) continue;
      const set = termSets[field] ?? new Set<string>();
      set.add(term.slug);
      termSets[field] = set;
    }
    return {
      id: screen.id,
      app: screen.app,
      platform: screen.platform,
      kind: screen.kind,
      name: screen.title ?? screen.page,
      capturedAt: screen.capturedAt.toISOString(),
      words: screen.searchText.split(" "),
      variants: variants.filter((row) => row.screenId === screen.id),
      terms: termSets,
    };
  });
}

/** The query's words as a reader would take them: NFKC, lowercase, runs of letters and digits. */
const queryWords = (q: string) =>
  q
    .normalize("NFKC")
    .toLowerCase()
    .match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];

function matches(row: Row, f: Filters): boolean {
  if (f.platform && row.platform !== f.platform) return false;
  if (f.app && row.app !== f.app) return false;
  if (f.kind && row.kind !== f.kind) return false;
  if (
    (f.viewport || f.lang || f.mode) &&
    !row.variants.some(
      (v) =>
        (!f.viewport || v.viewport === f.viewport) && (!f.lang || v.lang === f.lang) && (!f.mode || v.mode === f.mode),
    )
  )
    return false;
  for (const field of Object.keys(TERM_KINDS) as TermField[]) {
    for (const slug of f[field] ?? []) if (!row.terms[field]?.has(slug)) return false;
  }
  if (f.q) {
    for (const word of queryWords(f.q)) if (!row.words.some((each) => each.includes(word))) return false;
  }
  return true;
}

const codePoints = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const ORDERS = {
  newest: (a: Row, b: Row) => codePoints(b.capturedAt, a.capturedAt) || b.id - a.id,
  oldest: (a: Row, b: Row) => codePoints(a.capturedAt, b.capturedAt) || a.id - b.id,
  name: (a: Row, b: Row) => codePoints(a.name, b.name) || a.id - b.id,
};

function expected(f: Filters, sort: keyof typeof ORDERS = "newest"): number[] {
  return rows
    .filter((row) => matches(row, f))
    .sort(ORDERS[sort])
    .map((row) => row.id);
}

/** Every facet as the brute force counts it: a single value replacing the filter's, a term added to its list. */
function expectedFacets(f: Filters) {
  const facets: Record<string, { value: string; count: number }[]> = {};
  for (const field of [...SINGLE, ...(Object.keys(TERM_KINDS) as TermField[])]) {
    const list: { value: string; count: number }[] = [];
    for (const value of vocabulary[field] ?? []) {
      const changed: Filters = (SINGLE as readonly string[]).includes(field)
        ? { ...f, [field]: value }
        : { ...f, [field]: [...new Set([...(f[field as TermField] ?? []), value])] };
      const count = rows.filter((row) => matches(row, changed)).length;
      if (count > 0) list.push({ value, count });
    }
    facets[field] = list.sort((a, b) => b.count - a.count || codePoints(a.value, b.value));
  }
  return facets;
}

/** The filters as a query string: lists as a comma list or repeated parameters, as `style` says. */
function queryOf(f: Filters, extra: Record<string, string> = {}, style: "comma" | "repeat" = "comma"): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(f)) {
    if (Array.isArray(value)) {
      if (style === "comma") params.append(name, value.join(","));
      else for (const each of value) params.append(name, each);
    } else if (value !== undefined) params.append(name, value);
  }
  for (const [name, value] of Object.entries(extra)) params.append(name, value);
  return params.toString();
}

async function list(f: Filters, extra: Record<string, string> = {}, style: "comma" | "repeat" = "comma") {
  const answer = await request(`/api/v1/screens?${queryOf(f, extra, style)}`);
  expect(answer.status, answer.text.slice(0, 400)).toBe(200);
  // The route writes its JSON once without checking it again: every answer here is checked against the schema.
  expect(() => ScreensPage.strict().parse(answer.body)).not.toThrow();
  return answer.body;
}

const facetCounts = (facets: Record<string, { value: string; count: number }[]>) =>
  Object.fromEntries(
    Object.entries(facets).map(([name, values]) => [name, values.map(({ value, count }) => ({ value, count }))]),
  );

/** A random combination of filters over values the gallery has (so each is known), sometimes with words. */
function randomFilters(random: ReturnType<typeof seededRandom>): Filters {
  const f: Filters = {};
  const fields = random.some([...SINGLE, ...Object.keys(TERM_KINDS), "q"], 5);
  for (const field of fields) {
    if (field === "q") f.q = random.pick(["결제", "check", "글", "a", "library 결제", "ＣＡＲＴ", "page"]);
    else if ((SINGLE as readonly string[]).includes(field)) f[field as Single] = random.pick(vocabulary[field] ?? []);
    else f[field as TermField] = random.some(vocabulary[field] ?? [], 2);
  }
  return f;
}

describe("the gallery's screens list", () => {
  it("holds the few hundred current screens the two replayed runs left, history left out", async () => {
    expect(rows.length).toBeGreaterThan(150);
    const statuses = await testDb.db
      .select({ status: schema.galleryScreens.status })
      .from(schema.galleryScreens)
      .where(ne(schema.galleryScreens.status, "current"));
    expect(new Set(statuses.map((row) => row.status))).toEqual(new Set(["replaced", "removed"]));
    expect((await list({}, { facets: "false" })).total).toBe(rows.length);
    for (const field of Object.keys(vocabulary)) expect(vocabulary[field]?.length, field).toBeGreaterThan(0);
  });

  it("filters by each value of each filter alone exactly as a brute force over the same rows", async () => {
    for (const field of [...SINGLE, ...(Object.keys(TERM_KINDS) as TermField[])]) {
      for (const value of vocabulary[field] ?? []) {
        const f: Filters = (SINGLE as readonly string[]).includes(field) ? { [field]: value } : { [field]: [value] };
        const ids = expected(f);
        const answer = await list(f, { cols: "12", facets: "false" });
        expect({ field, value, total: answer.total }).toEqual({ field, value, total: ids.length });
        expect(answer.items.map((item: { id: number }) => item.id)).toEqual(ids.slice(0, 24));
        expect(answer.facets).toBeNull();
      }
    }
  });

  it("combines filters, facets included, exactly as the brute force does (seeded random combinations)", async () => {
    const random = seededRandom(SEED + 2);
    let nonEmpty = 0;
    for (let round = 0; round < 150; round++) {
      const f = randomFilters(random);
      const sort = random.pick(["newest", "oldest", "name"] as const);
      const ids = expected(f, sort);
      if (ids.length > 0) nonEmpty++;
      const answer = await list(f, { sort, cols: "5" }, random.next() < 0.5 ? "comma" : "repeat");
      const label = JSON.stringify({ f, sort });
      expect(answer.total, label).toBe(ids.length);
      expect(
        answer.items.map((item: { id: number }) => item.id),
        label,
      ).toEqual(ids.slice(0, 25));
      expect(facetCounts(answer.facets), label).toEqual(expectedFacets(f));
    }
    expect(nonEmpty).toBeGreaterThan(50);
  });

  it("answers the unfiltered grid from the counts the last replay stored, as counting now would", async () => {
    const stored = await testDb.db.select().from(schema.galleryCounts);
    expect(stored.find((row) => row.facet === "total")?.count).toBe(rows.length);
    const answer = await list({});
    expect(answer.total).toBe(rows.length);
    expect(facetCounts(answer.facets)).toEqual(expectedFacets({}));
    // Filters that leave most screens: their terms are the stored counts less the other screens' terms.
    const most: Filters[] = [{ platform: "web" }, { lang: "en" }, { viewport: "desktop" }];
    const answers = [];
    for (const f of most) {
      expect(expected(f).length * 2, JSON.stringify(f)).toBeGreaterThan(rows.length);
      const filtered = await list(f);
      expect(facetCounts(filtered.facets), JSON.stringify(f)).toEqual(expectedFacets(f));
      answers.push(filtered);
    }
    // A gallery no replay has counted yet (migrated from before the counts) is counted on the spot.
    await testDb.db.delete(schema.galleryCounts);
    try {
      const counted = await list({});
      expect(counted.facets).toEqual(answer.facets);
      expect(counted.total).toBe(rows.length);
      for (const [index, f] of most.entries()) expect((await list(f)).facets).toEqual(answers[index]?.facets);
    } finally {
      await testDb.db.insert(schema.galleryCounts).values(stored);
    }
  });

  it("gives facets whose every count is the total the list then has (no facet leads to an empty page)", async () => {
    const f: Filters = { lang: "ko", patterns: [vocabulary.patterns?.[0] as string] };
    const answer = await list(f);
    for (const [field, values] of Object.entries(answer.facets as Record<string, { value: string; count: number }[]>)) {
      for (const { value, count } of values.slice(0, 3)) {
        const changed = (SINGLE as readonly string[]).includes(field)
          ? { ...f, [field]: value }
          : { ...f, [field]: [...new Set([...((f as Record<string, string[]>)[field] ?? []), value])] };
        expect(count, `${field}=${value}`).toBeGreaterThan(0);
        expect((await list(changed, { facets: "false" })).total, `${field}=${value}`).toBe(count);
      }
    }
  });

  it("finds Korean and English words, parts of words, one-letter words and full-width letters", async () => {
    for (const q of ["결제", "간편결", "로그", "글", "CHECK", "checkout", "Ｃｈｅｃｋ", "a", "결제 page", "app-1"]) {
      const ids = expected({ q });
      const answer = await list({ q }, { cols: "12", facets: "false" });
      expect({ q, total: answer.total }).toEqual({ q, total: ids.length });
      expect(answer.items.map((item: { id: number }) => item.id)).toEqual(ids.slice(0, 24));
    }
    // A part of a word finds the words holding it: 결제 is in 간편결제 too.
    expect(expected({ q: "결제" }).length).toBeGreaterThan(expected({ q: "간편결제" }).length);
    expect(expected({ q: "간편결제" }).length).toBeGreaterThan(0);
    expect(expected({ q: "zzqx" })).toEqual([]);
    expect((await list({ q: "zzqx" })).total).toBe(0);
    // The visible text of the HTML is searched, not only titles and tags: a word only the pages' text holds.
    expect((await list({ q: "subscription" })).total).toBeGreaterThan(0);
  });

  it("pages stably and completely in every order and grid width: each screen once, none missing", async () => {
    const f: Filters = { lang: "en" };
    for (const sort of ["newest", "oldest", "name"] as const) {
      for (const cols of [5, 7]) {
        const seen: number[] = [];
        const size = pageSizeFor(cols);
        const first = await list(f, { sort, cols: String(cols), facets: "false" });
        expect(first.page_size).toBe(size);
        expect(size % cols).toBe(0);
        for (let page = 1; page <= first.pages; page++) {
          const answer = await list(f, { sort, cols: String(cols), page: String(page), facets: "false" });
          expect(answer.items.length).toBe(page < first.pages ? size : first.total - size * (first.pages - 1));
          seen.push(...answer.items.map((item: { id: number }) => item.id));
        }
        expect(seen).toEqual(expected(f, sort));
        const past = await list(f, { sort, cols: String(cols), page: String(first.pages + 1), facets: "false" });
        expect(past.items).toEqual([]);
      }
    }
  });

  it("reads names in a comma list, as repeated parameters, or both, alike", async () => {
    const [one, two] = vocabulary.elements as [string, string];
    const comma = await list({ elements: [one, two] }, {}, "comma");
    const repeat = await list({ elements: [one, two] }, {}, "repeat");
    const both = await request(
      `/api/v1/screens?elements=${encodeURIComponent(one)},${encodeURIComponent(two)}&elements=${encodeURIComponent(one)}`,
    );
    expect(repeat.total).toBe(comma.total);
    expect(both.body.total).toBe(comma.total);
    expect(comma.total).toBe(expected({ elements: [one, two] }).length);
  });

  it("takes names as people write them: any case, spaces for hyphens, colors without #", async () => {
    const color = vocabulary.colors?.[0] as string;
    const spaced = await list({ patterns: ["Empty State"], colors: [color.slice(1).toUpperCase()] });
    expect(spaced.total).toBe(expected({ patterns: ["empty-state"], colors: [color] }).length);
  });

  it("answers 422 naming the field for every unknown value, never an empty list", async () => {
    const pattern = vocabulary.patterns?.[0] as string;
    const cases: [string, string][] = [
      ["platform=ios", "platform"],
      ["viewport=tablet", "viewport"],
      ["lang=fr", "lang"],
      ["mode=sepia", "mode"],
      ["sort=random", "sort"],
      ["kind=no-such-kind", "kind"],
      ["app=no-such-app", "app"],
      [`patterns=${pattern},no-such-pattern`, "patterns"],
      ["components=nope", "components"],
      ["elements=nope", "elements"],
      ["fonts=nope", "fonts"],
      ["colors=%23123456", "colors"],
      ["cols=0", "cols"],
      ["cols=13", "cols"],
      ["cols=three", "cols"],
      ["page=0", "page"],
      ["page=1.5", "page"],
      ["q=%21%21%21", "q"],
      ["facets=maybe", "facets"],
      [`patterns=${"x,".repeat(11)}`, "patterns"],
      ["sort=newest&sort=name", "sort"],
    ];
    for (const [query, field] of cases) {
      const answer = await request(`/api/v1/screens?${query}`);
      expect({ query, status: answer.status, fields: Object.keys(answer.body?.errors ?? {}) }).toEqual({
        query,
        status: 422,
        fields: [field],
      });
    }
    const unknown = await request(`/api/v1/screens?patterns=${pattern},no-such-pattern`);
    expect(unknown.body.errors.patterns).toEqual(['the gallery has no pattern "no-such-pattern"']);
    // An empty q is no filter, as a search box left empty sends it.
    expect((await list({ q: "" }, { facets: "false" })).total).toBe(rows.length);
  });

  it("answers with a weak ETag and a minute's public caching, and 304 to a client that has it", async () => {
    const first = await request("/api/v1/screens?lang=ko");
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^W\/"/);
    const again = await request("/api/v1/screens?lang=ko", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const other = await request("/api/v1/screens?lang=en", { headers: { "if-none-match": etag } });
    expect(other.status).toBe(200);
  });

  // Last: it replays a third run.
  it("counts a filter once per gallery generation: after the next replay it says what the gallery then holds", async () => {
    const pattern = vocabulary.patterns?.[0] as string;
    const f: Filters = { patterns: [pattern], lang: "ko" };
    const before = await list(f);
    expect(await list(f)).toEqual(before);
    expect(facetCounts(before.facets)).toEqual(expectedFacets(f));
    const unfiltered = await list({});
    // A run captures the pattern's pages again without it.
    const recaptured = screens
      .filter((screen) => screen.patterns.includes(pattern))
      .map((screen) => ({ ...screen, patterns: [], at: 200_000 }));
    await seedRun(testDb.db, delivery.store, recaptured, { buildVersions: ["2026.11.3"] });
    rows = await readRows();
    const after = await list(f);
    expect(after.total).toBeLessThan(before.total);
    expect(after.total).toBe(expected(f).length);
    expect(facetCounts(after.facets)).toEqual(expectedFacets(f));
    expect((await list(f, { facets: "false" })).total).toBe(after.total);
    const now = await list({});
    expect(facetCounts(now.facets)).toEqual(expectedFacets({}));
    expect(facetCounts(now.facets)).not.toEqual(facetCounts(unfiltered.facets));
  });
});
