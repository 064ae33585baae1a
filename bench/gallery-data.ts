import { createHash } from "node:crypto";
import { galleryMask, gallerySearch, refreshGalleryCounts } from "@shelf/api";
import { mulberry32 } from "@shelf/api/testing/mulberry32";
import type { Database } from "@shelf/db";
import type postgres from "postgres";

/*
 * A design gallery of `screens` current screens across `apps` apps, as replays would leave it, written in bulk: one
 * replayed run, its captures (one per variant), apps, screens with their search words and pieces (the replay's own
 * functions make them), variants (desktop and mobile, Korean and English, some signed in, some dark), and tags drawn
 * with a long tail as real collections have: a few page types, patterns and elements on most screens, many
 * components, fonts and colors on few. 5 % of pages also keep an older, replaced screen (history).
 */

export type GalleryBenchData = {
  counts: Record<string, number>;
  /** Names the scenarios filter by: common patterns, and words each language's pages hold. */
  patterns: [string, string];
  words: { en: string; ko: string };
};

/** mulberry32: the same gallery on every run. */
function generator(seed: number) {
  const next = mulberry32(seed);
  /** An index below `n`, low ones far likelier (a long tail). */
  const skewed = (n: number, power = 2) => Math.floor(n * next() ** power);
  const pick = <T>(list: readonly T[], power = 1) => list[skewed(list.length, power)] as T;
  const several = <T>(list: readonly T[], least: number, most: number, power = 2) => {
    const count = least + Math.floor(next() * (most - least + 1));
    const chosen = new Set<T>();
    for (let attempt = 0; chosen.size < count && attempt < count * 4; attempt++) chosen.add(pick(list, power));
    return [...chosen];
  };
  return { next, skewed, pick, several };
}

const PAGE_TYPES = [
  "list",
  "detail",
  "form",
  "settings",
  "home",
  "sign-in",
  "dashboard",
  "search",
  "checkout",
  "profile",
  "sign-up",
  "error",
  "onboarding",
  "pricing",
  "help",
];
const PATTERNS = [
  "card",
  "navigation",
  "form",
  "data-table",
  "search",
  "filter",
  "pagination",
  "tabs",
  "empty-state",
  "dialog",
  "sidebar",
  "breadcrumb",
  "toast",
  "card-grid",
  "stepper",
  "hero",
  "skeleton",
  "tooltip",
  "accordion",
  "carousel",
  "file-upload",
  "inline-validation",
  "bottom-sheet",
  "infinite-scroll",
  "pricing-table",
  "language-switch",
  "modal",
  "onboarding",
  "settings",
  "error-page",
  ...Array.from({ length: 30 }, (_, index) => `pattern-${index + 1}`),
];
const ELEMENTS = [
  "button",
  "link",
  "text-field",
  "icon",
  "image",
  "checkbox",
  "select",
  "badge",
  "avatar",
  "switch",
  "radio",
  "divider",
  "chip",
  "progress",
  "slider",
  "table",
  "menu",
  "tab",
  "textarea",
  "date-picker",
  ...Array.from({ length: 30 }, (_, index) => `element-${index + 1}`),
];
const FONTS = [
  "pretendard",
  "sans-serif",
  "inter",
  "system-ui",
  "noto sans kr",
  "roboto",
  "monospace",
  "apple sd gothic neo",
  "spoqa han sans neo",
  "ui-monospace",
  ...Array.from({ length: 30 }, (_, index) => `family ${index + 1}`),
];
const GENERIC = new Set(["sans-serif", "system-ui", "monospace", "ui-monospace"]);
/** What every page's header and footer say. */
const CHROME = {
  en: ["home", "settings", "help", "search", "sign", "out", "language", "menu", "privacy", "terms"],
  ko: ["홈", "설정", "도움말", "검색", "로그아웃", "언어", "메뉴", "개인정보", "약관"],
};
/** Words of each page type's own content (the first ones most often). */
const TYPE_WORDS: Record<string, { en: string[]; ko: string[] }> = {
  list: { en: ["items", "sort", "filter", "results", "more", "recent"], ko: ["목록", "정렬", "필터", "더보기"] },
  detail: { en: ["details", "overview", "share", "copy", "version", "updated"], ko: ["상세", "개요", "공유", "버전"] },
  form: { en: ["name", "email", "save", "cancel", "required", "submit"], ko: ["이름", "이메일", "저장", "취소"] },
  settings: { en: ["account", "security", "notifications", "theme", "dark"], ko: ["계정", "보안", "알림", "테마"] },
  home: { en: ["welcome", "popular", "new", "featured", "start"], ko: ["환영합니다", "인기", "새로운", "시작하기"] },
  "sign-in": { en: ["password", "forgot", "continue", "remember"], ko: ["로그인", "비밀번호", "계속", "기억하기"] },
  dashboard: { en: ["activity", "reports", "usage", "today", "week"], ko: ["대시보드", "활동", "보고서", "사용량"] },
  search: { en: ["query", "matches", "suggestions", "clear"], ko: ["검색결과", "추천", "지우기", "일치"] },
  checkout: {
    en: ["checkout", "payment", "total", "shipping", "card", "order"],
    ko: ["결제", "간편결제", "결제수단", "배송지"],
  },
  profile: { en: ["profile", "avatar", "bio", "followers", "edit"], ko: ["프로필", "소개", "팔로워", "편집"] },
  "sign-up": { en: ["create", "account", "agree", "verify"], ko: ["회원가입", "동의", "인증", "만들기"] },
  error: { en: ["error", "not", "found", "again", "back"], ko: ["오류", "찾을", "없습니다", "다시"] },
  onboarding: { en: ["step", "next", "skip", "tour", "finish"], ko: ["단계", "다음", "건너뛰기", "완료"] },
  pricing: { en: ["plans", "monthly", "yearly", "free", "pro"], ko: ["요금제", "월간", "연간", "무료"] },
  help: { en: ["faq", "contact", "support", "guides", "ticket"], ko: ["자주묻는질문", "문의", "고객센터", "가이드"] },
};
/** The long tail: made-up words, as many as a real collection's page contents hold. */
const EN_SYLLABLES = ["ka", "lo", "mi", "ren", "tor", "vel", "sa", "qui", "dun", "pe", "ba", "nix", "ro", "zel"];
const KO_SYLLABLES = [..."가나다라마바사아자차카타파하고노도로모보소오조초구누두루무부수우주추"];
const APP_WORDS = ["pay", "shop", "mail", "docs", "drive", "chat", "notes", "travel", "bank", "learn"];

const hex = (n: number) => n.toString(16).padStart(6, "0");
const { searchColumns, searchWords } = gallerySearch;
const { variantMask } = galleryMask;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

type Random = ReturnType<typeof generator>;
type Columns = Record<string, unknown[]>;
const SCREEN_COLUMNS = [
  "id",
  "app_id",
  "run_id",
  "page",
  "title",
  "page_type",
  "status",
  "replaced_by_id",
  "retired_by_run_id",
  "captured_at",
  "sha",
  "text",
  "grams",
  "mask",
];
const VARIANT_COLUMNS = [
  "id",
  "screen_id",
  "capture_id",
  "viewport",
  "lang",
  "auth",
  "mode",
  "title",
  "url",
  "sha",
  "width",
  "height",
  "captured_at",
];
const columns = (names: string[]): Columns => Object.fromEntries(names.map((name) => [name, []]));
const push = (table: Columns, row: Record<string, unknown>) => {
  for (const [column, value] of Object.entries(row)) table[column]?.push(value);
};

/** One batch of rows, column by column, as `unnest` takes them. */
type Batch = { screens: Columns; variants: Columns; links: { screen: number[]; term: number[]; uses: number[] } };

/** What every screen is made from: the runs, the apps and how big each is, the vocabulary, and the ids so far. */
type Loading = {
  random: Random;
  runId: number;
  olderRunId: number;
  appSlugs: string[];
  appIds: number[];
  pickApp: () => number;
  components: string[];
  colors: string[];
  idOf: (kind: string, slug: string) => number;
  ids: { screen: number; capture: number };
  counts: { screens: number; history: number; variants: number; links: number };
};

const START = Date.UTC(2026, 7, 1);

/** The words a screen shows: its page type's, the chrome's, and made-up names, in both languages. */
function screenText(random: Random, own: { en: string[]; ko: string[] }) {
  const made = (syllables: readonly string[], count: number) =>
    Array.from({ length: count }, () =>
      Array.from({ length: 2 + Math.floor(random.next() * 2) }, () => random.pick(syllables)).join(""),
    );
  return {
    en: [...random.several(CHROME.en, 3, 6, 1), ...random.several(own.en, 2, 4, 1.5), ...made(EN_SYLLABLES, 8)].join(
      " ",
    ),
    ko: [...random.several(CHROME.ko, 2, 5, 1), ...random.several(own.ko, 2, 3, 1.5), ...made(KO_SYLLABLES, 5)].join(
      " ",
    ),
  };
}

/** The states a page was captured in: both languages at desktop, mostly at mobile too, some signed in or dark. */
function screenStates(random: Random): [string, string, boolean, string | null][] {
  const states: [string, string, boolean, string | null][] = [];
  const mode = random.next() < 0.1 ? null : "light";
  const mobile = random.next() < 0.7;
  for (const viewport of mobile ? ["desktop", "mobile"] : ["desktop"]) {
    for (const lang of ["ko", "en"]) states.push([viewport, lang, false, mode]);
  }
  if (random.next() < 0.2) states.push(["desktop", "ko", true, mode]);
  if (mode && random.next() < 0.15) states.push(["desktop", "en", false, "dark"]);
  return states;
}

/** Adds the `index`th page to the batch: its screen (and, one page in twenty, an older one), variants and terms. */
function addScreen(loading: Loading, batch: Batch, index: number): void {
  const { random, runId, olderRunId, appSlugs, appIds, ids, counts, idOf } = loading;
  const app = loading.pickApp();
  const appSlug = appSlugs[app] as string;
  const pageType = random.pick(PAGE_TYPES, 1.6);
  const page = `/${pageType}/${index}`;
  const own = TYPE_WORDS[pageType] as { en: string[]; ko: string[] };
  const noun = random.pick(own.en, 1.5);
  const titles = {
    en: `${noun[0]?.toUpperCase()}${noun.slice(1)} ${pageType}`,
    ko: `${random.pick(own.ko, 1.5)} 화면`,
  };
  const patterns = random.several(PATTERNS, 1, 4, 2.2);
  const elements = random.several(ELEMENTS, 3, 8, 2);
  const parts = random.several(loading.components, 1, 3, 1.3);
  const fonts = random.several(FONTS, 1, 3, 2.5);
  const palette = random.several(loading.colors, 3, 8, 2);
  const text = screenText(random, own);
  const states = screenStates(random);
  const capturedAt = new Date(START + Math.floor(random.next() * 90 * 86_400_000));
  const words = [
    ...searchWords(appSlug),
    ...searchWords(page),
    ...searchWords(titles.en),
    ...searchWords(titles.ko),
    ...searchWords(text.en),
    ...searchWords(text.ko),
    ...[pageType, ...patterns, ...elements, ...parts].flatMap(searchWords),
  ];
  const { searchText, searchGrams } = searchColumns(words);
  const mask = variantMask(states.map(([viewport, lang, , mode]) => ({ viewport, lang, mode }) as never));
  const screen = { app_id: appIds[app], page, title: titles.ko, page_type: pageType, text: searchText, mask };
  const grams = searchGrams.join(" ");
  // One page in twenty also keeps the screen an older run made of it.
  if (random.next() < 0.05) {
    push(batch.screens, {
      ...screen,
      id: ++ids.screen,
      run_id: olderRunId,
      status: "replaced",
      replaced_by_id: ids.screen + 1,
      retired_by_run_id: runId,
      captured_at: new Date(capturedAt.getTime() - 30 * 86_400_000).toISOString(),
      sha: sha256(`old ${index}`),
      grams,
    });
    counts.history++;
  }
  const id = ++ids.screen;
  push(batch.screens, {
    ...screen,
    id,
    run_id: runId,
    status: "current",
    replaced_by_id: null,
    retired_by_run_id: null,
    captured_at: capturedAt.toISOString(),
    sha: sha256(`screen ${index}`),
    grams,
  });
  counts.screens++;
  for (const [viewport, lang, auth, variantMode] of states) {
    const captureId = ++ids.capture;
    push(batch.variants, {
      id: captureId,
      screen_id: id,
      capture_id: captureId,
      viewport,
      lang,
      auth,
      mode: variantMode,
      title: lang === "ko" ? titles.ko : titles.en,
      url: `https://${appSlug}${page}`,
      sha: sha256(`image ${captureId}`),
      width: viewport === "desktop" ? 640 : 195,
      height: 400 + (captureId % 7) * 40,
      captured_at: capturedAt.toISOString(),
    });
    counts.variants++;
  }
  const link = (kind: string, slug: string, uses: number) => {
    batch.links.screen.push(id);
    batch.links.term.push(idOf(kind, slug));
    batch.links.uses.push(uses);
  };
  link("page_type", pageType, states.length);
  for (const slug of patterns) link("pattern", slug, states.length);
  for (const slug of elements) link("element", slug, states.length);
  for (const label of parts) link("component", label.toLowerCase(), states.length);
  for (const slug of fonts) link("font", slug, 1 + (id % 5));
  for (const slug of palette) link("color", slug, 1 + (id % 9));
}

/** Writes one batch: its screens, their captures and variants, and their terms, each in one statement. */
async function insertBatch(sql: postgres.Sql, runId: number, { screens, variants, links }: Batch): Promise<void> {
  await sql`
    insert into gallery_screens (id, app_id, run_id, page, title, page_type, status, replaced_by_id,
      retired_by_run_id, captured_at, content_sha256, search_text, search_grams, variant_mask)
    select id, app_id, run_id, page, title, page_type, status, replaced_by_id, retired_by_run_id,
      captured_at, sha, text, string_to_array(grams, ' '), mask
    from unnest(${screens.id as number[]}::int[], ${screens.app_id as number[]}::int[],
      ${screens.run_id as number[]}::int[], ${screens.page as string[]}::text[],
      ${screens.title as string[]}::text[], ${screens.page_type as string[]}::text[], ${screens.status as string[]}::text[],
      ${screens.replaced_by_id as number[]}::int[], ${screens.retired_by_run_id as number[]}::int[],
      ${screens.captured_at as string[]}::timestamptz[], ${screens.sha as string[]}::text[],
      ${screens.text as string[]}::text[], ${screens.grams as string[]}::text[], ${screens.mask as number[]}::int[])
      as s(id, app_id, run_id, page, title, page_type, status, replaced_by_id, retired_by_run_id, captured_at, sha, text,
        grams, mask)`;
  await sql`
    insert into collect_captures (id, run_id, key, url, viewport, lang, auth, outcome, final_url, http_status,
      image_sha256, image_type, image_width, image_height, image_size, image_key, created_at)
    overriding system value
    select id, ${runId}::int, substr(md5(id::text) || md5('k' || id), 1, 40), url, viewport, lang, auth, 'ok', url, 200,
      sha, 'png', width, height, 24000 + id % 6000, 'artifacts/bench/' || id, captured_at
    from unnest(${variants.id as number[]}::int[], ${variants.url as string[]}::text[],
      ${variants.viewport as string[]}::text[], ${variants.lang as string[]}::text[], ${(variants.auth as boolean[]).map(String)}::text[]::boolean[],
      ${variants.sha as string[]}::text[], ${variants.width as number[]}::int[], ${variants.height as number[]}::int[],
      ${variants.captured_at as string[]}::timestamptz[])
      as v(id, url, viewport, lang, auth, sha, width, height, captured_at)`;
  await sql`
    insert into gallery_screen_variants (id, screen_id, capture_id, run_id, viewport, lang, auth, mode, title, url,
      image_key, image_type, image_sha256, image_size, image_width, image_height, captured_at)
    select id, screen_id, capture_id, ${runId}::int, viewport, lang, auth, mode, title, url, 'artifacts/bench/' || id,
      'png', sha, 24000 + id % 6000, width, height, captured_at
    from unnest(${variants.id as number[]}::int[], ${variants.screen_id as number[]}::int[],
      ${variants.capture_id as number[]}::int[], ${variants.viewport as string[]}::text[], ${variants.lang as string[]}::text[],
      ${(variants.auth as boolean[]).map(String)}::text[]::boolean[], ${variants.mode as (string | null)[]}::text[], ${variants.title as string[]}::text[],
      ${variants.url as string[]}::text[], ${variants.sha as string[]}::text[], ${variants.width as number[]}::int[],
      ${variants.height as number[]}::int[], ${variants.captured_at as string[]}::timestamptz[])
      as v(id, screen_id, capture_id, viewport, lang, auth, mode, title, url, sha, width, height, captured_at)`;
  await sql`
    insert into gallery_screen_terms (screen_id, term_id, uses)
    select * from unnest(${links.screen}::int[], ${links.term}::int[], ${links.uses}::int[])`;
}

/** Loads the gallery through `sql` (a fresh, migrated database) and returns its counts and scenario names. */
/**
 * `sql` is a plain postgres.js client (drizzle's changes its clients' serializers, and bulk arrays need them); `db`
 * counts the facets as the replay does.
 */
export async function loadGalleryData(
  { db, sql }: { db: Database; sql: postgres.Sql },
  options: { screens: number; apps: number; seed?: number },
): Promise<GalleryBenchData> {
  const random = generator(options.seed ?? 20_261_123);
  const components = Array.from({ length: 400 }, (_, index) => `Component${index + 1}`);
  const colors = Array.from({ length: 500 }, (_, index) => `#${hex((index * 2_654_435_761) % 0xffffff)}`);

  const [run] = await sql<{ id: number }[]>`
    insert into collect_runs (status, viewports, langs, opener_name, lease_expires_at, build_versions, submitted_at,
      finished_at, replay)
    values ('replayed', '{desktop,mobile}', '{ko,en}', 'bench-collector', now(), '{2026.11.23}', now(), now(),
      '{"added":{"apps":0,"screens":0,"flows":0},"changed":{"apps":0,"screens":0,"flows":0},"removed":{"apps":0,"screens":0,"flows":0}}')
    returning id`;
  const runId = run?.id as number;
  // The run that made the screens the newer one replaced.
  const [older] = await sql<{ id: number }[]>`
    insert into collect_runs (status, viewports, langs, opener_name, lease_expires_at, build_versions, submitted_at,
      finished_at)
    values ('replayed', '{desktop,mobile}', '{ko,en}', 'bench-collector', now(), '{2026.10.1}', now(), now())
    returning id`;
  const olderRunId = older?.id as number;

  // The vocabulary: every term once, ids in kind order.
  const terms: { kind: string; slug: string; label: string; generic: boolean }[] = [
    ...PAGE_TYPES.map((slug) => ({ kind: "page_type", slug, label: slug, generic: false })),
    ...PATTERNS.map((slug) => ({ kind: "pattern", slug, label: slug, generic: false })),
    ...ELEMENTS.map((slug) => ({ kind: "element", slug, label: slug, generic: false })),
    ...components.map((label) => ({ kind: "component", slug: label.toLowerCase(), label, generic: false })),
    ...FONTS.map((slug) => ({ kind: "font", slug, label: slug, generic: GENERIC.has(slug) })),
    ...colors.map((slug) => ({ kind: "color", slug, label: slug, generic: false })),
  ];
  const termRows = await sql<{ id: number; kind: string; slug: string }[]>`
    insert into gallery_terms (kind, slug, label, generic)
    select * from unnest(${terms.map((t) => t.kind)}::text[], ${terms.map((t) => t.slug)}::text[],
      ${terms.map((t) => t.label)}::text[], ${terms.map((t) => String(t.generic))}::text[]::boolean[])
    returning id, kind, slug`;
  const termId = new Map(termRows.map((row) => [`${row.kind}:${row.slug}`, row.id]));
  const idOf = (kind: string, slug: string) => termId.get(`${kind}:${slug}`) as number;

  const appSlugs = Array.from(
    { length: options.apps },
    (_, index) => `${APP_WORDS[index % APP_WORDS.length]}${index + 1}.example.com`,
  );
  const apps = await sql<{ id: number; slug: string }[]>`
    insert into gallery_apps (slug, platform, origin, first_run_id, last_run_id)
    select s, 'web', 'https://' || s, ${runId}::int, ${runId}::int from unnest(${appSlugs}::text[]) s
    returning id, slug`;
  const appIds = apps.map((app) => app.id);
  // Apps differ in size: from a tenth of the average to about twice it.
  const weights = appIds.map((_, index) => 0.1 + ((index * 7919) % 19) / 10);
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const pickApp = () => {
    let target = random.next() * weightSum;
    for (let index = 0; index < weights.length; index++) {
      target -= weights[index] as number;
      if (target <= 0) return index;
    }
    return weights.length - 1;
  };

  const loading: Loading = {
    random,
    runId,
    olderRunId,
    appSlugs,
    appIds,
    pickApp,
    components,
    colors,
    idOf,
    ids: { screen: 0, capture: 0 },
    counts: { screens: 0, history: 0, variants: 0, links: 0 },
  };
  const BATCH = 2000;
  for (let first = 0; first < options.screens; first += BATCH) {
    const batch: Batch = {
      screens: columns(SCREEN_COLUMNS),
      variants: columns(VARIANT_COLUMNS),
      links: { screen: [], term: [], uses: [] },
    };
    for (let index = first; index < Math.min(first + BATCH, options.screens); index++) addScreen(loading, batch, index);
    await insertBatch(sql, runId, batch);
    loading.counts.links += batch.links.screen.length;
  }
  const { ids, counts } = loading;
  await sql`select setval(pg_get_serial_sequence('gallery_screens', 'id'), ${ids.screen})`;
  await sql`select setval(pg_get_serial_sequence('gallery_screen_variants', 'id'), ${ids.capture})`;
  await sql`select setval(pg_get_serial_sequence('collect_captures', 'id'), ${ids.capture})`;
  // What a replay does last: the unfiltered facets, counted once.
  await refreshGalleryCounts(db);
  await sql`vacuum analyze`;
  return {
    counts: {
      apps: appIds.length,
      "current screens": counts.screens,
      "replaced screens": counts.history,
      variants: counts.variants,
      terms: terms.length,
      "screen terms": counts.links,
    },
    patterns: [PATTERNS[0] as string, PATTERNS[2] as string],
    words: { en: "checkout", ko: "결제" },
  };
}
