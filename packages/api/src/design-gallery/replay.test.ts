import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createFilesystemStore } from "@shelf/server/storage/filesystem";
import type { ArtifactStore } from "@shelf/server/storage/store";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplayError, replayRun } from "./replay";

let workDir: string;
let store: ArtifactStore;
const databases: TestDatabase[] = [];

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-gallery-"));
  store = createFilesystemStore(path.join(workDir, "artifacts"));
});
afterAll(async () => {
  for (const database of databases) await database.drop();
  await fs.rm(workDir, { recursive: true, force: true });
});

const GALLERY_TABLES = [
  "gallery_apps",
  "gallery_screens",
  "gallery_screen_variants",
  "gallery_terms",
  "gallery_screen_terms",
  "gallery_app_terms",
  "gallery_flows",
  "gallery_flow_steps",
];

type CaptureSpec = {
  url: string;
  viewport?: "desktop" | "mobile";
  lang?: "ko" | "en";
  auth?: boolean;
  outcome?: "ok" | "failed" | "redirected";
  httpStatus?: number;
  meta?: Record<string, unknown> | null;
  assets?: string[];
  /** The image's bytes (as text): equal images give equal content. */
  image?: string;
  /** The captured HTML; by default the URL in a <main>. */
  html?: string;
};

/** A database of this test's own, with collect rows written straight into it and bytes into the real store. */
async function gallery() {
  const testDb = await createTestDatabase();
  databases.push(testDb);
  const { db } = testDb;
  let clock = 0;

  return {
    db,
    async run(status: "submitted" | "open" = "submitted") {
      const [run] = await db
        .insert(schema.collectRuns)
        .values({
          status,
          viewports: ["desktop", "mobile"],
          langs: ["ko", "en"],
          openerName: "collector",
          leaseExpiresAt: new Date(Date.now() + 60_000),
          submittedAt: status === "open" ? null : new Date(),
        })
        .returning({ id: schema.collectRuns.id });
      if (!run) throw new Error("no run");
      return run.id;
    },
    async asset(runId: number, url: string, text: string, type: "css" | "js" = "css") {
      const stored = await store.put([Buffer.from(text)], type === "css" ? "text/css" : "text/javascript");
      await db
        .insert(schema.collectAssets)
        .values({ runId, sha256: stored.sha256, type, url, size: stored.size, objectKey: stored.key });
      return { sha256: stored.sha256, key: stored.key };
    },
    async capture(runId: number, spec: CaptureSpec) {
      const viewport = spec.viewport ?? "desktop";
      const lang = spec.lang ?? "en";
      const auth = spec.auth ?? false;
      const image = await store.put(
        [Buffer.from(spec.image ?? `${spec.url} ${viewport} ${lang} ${auth} ${runId}`)],
        "image/png",
      );
      const html = await store.put([Buffer.from(spec.html ?? `<main>${spec.url}</main>`)], "text/html");
      const [row] = await db
        .insert(schema.collectCaptures)
        .values({
          runId,
          key: randomBytes(20).toString("hex"),
          url: spec.url,
          viewport,
          lang,
          auth,
          outcome: spec.outcome ?? "ok",
          httpStatus: spec.httpStatus ?? null,
          finalUrl: spec.outcome === "redirected" ? "https://accounts.shelf.test/sign-in" : null,
          meta: spec.meta ?? null,
          imageSha256: image.sha256,
          imageType: "png",
          imageWidth: viewport === "desktop" ? 640 : 195,
          imageHeight: 400,
          imageSize: image.size,
          imageKey: image.key,
          htmlSha256: html.sha256,
          htmlSize: html.size,
          htmlKey: html.key,
          assets: spec.assets ?? [],
          createdAt: new Date(Date.UTC(2025, 0, 1) + ++clock * 1000),
        })
        .returning({ id: schema.collectCaptures.id });
      if (!row) throw new Error("no capture");
      return row.id;
    },
    /** Every gallery table, every row, in key order. */
    async dump() {
      const tables: Record<string, unknown> = {};
      for (const table of GALLERY_TABLES) {
        tables[table] = await testDb.sql.unsafe(`select * from ${table} order by 1, 2`);
      }
      return JSON.parse(JSON.stringify(tables)) as Record<string, Record<string, unknown>[]>;
    },
    async runRow(runId: number) {
      const [run] = await db.select().from(schema.collectRuns).where(eq(schema.collectRuns.id, runId));
      return run;
    },
    async screens() {
      const rows = await db
        .select({ screen: schema.galleryScreens, app: schema.galleryApps.slug })
        .from(schema.galleryScreens)
        .innerJoin(schema.galleryApps, eq(schema.galleryApps.id, schema.galleryScreens.appId))
        .orderBy(asc(schema.galleryScreens.id));
      return rows.map(({ screen, app }) => ({ ...screen, app }));
    },
    async variants(screenId: number) {
      return db
        .select()
        .from(schema.galleryScreenVariants)
        .where(eq(schema.galleryScreenVariants.screenId, screenId))
        .orderBy(asc(schema.galleryScreenVariants.id));
    },
    /** A screen's terms as `kind:slug` → uses. */
    async terms(screenId: number) {
      const rows = await db
        .select({
          kind: schema.galleryTerms.kind,
          slug: schema.galleryTerms.slug,
          uses: schema.galleryScreenTerms.uses,
        })
        .from(schema.galleryScreenTerms)
        .innerJoin(schema.galleryTerms, eq(schema.galleryTerms.id, schema.galleryScreenTerms.termId))
        .where(eq(schema.galleryScreenTerms.screenId, screenId));
      return Object.fromEntries(rows.map((row) => [`${row.kind}:${row.slug}`, row.uses]));
    },
    /** Flows with their steps' pages. */
    async flows() {
      const flows = await db.select().from(schema.galleryFlows).orderBy(asc(schema.galleryFlows.id));
      const steps = await db
        .select({
          flowId: schema.galleryFlowSteps.flowId,
          page: schema.galleryScreens.page,
          step: schema.galleryFlowSteps.flowStep,
        })
        .from(schema.galleryFlowSteps)
        .innerJoin(schema.galleryScreens, eq(schema.galleryScreens.id, schema.galleryFlowSteps.screenId))
        .orderBy(asc(schema.galleryFlowSteps.flowId), asc(schema.galleryFlowSteps.position));
      return flows.map((flow) => ({
        ...flow,
        steps: steps
          .filter((step) => step.flowId === flow.id)
          .map((step) => (step.step ? `${step.page}#${step.step}` : step.page)),
      }));
    },
  };
}

type Gallery = Awaited<ReturnType<typeof gallery>>;

const ACCOUNTS_CSS = `
@font-face { font-family: "Pretendard"; src: url(/fonts/pretendard.woff2) format("woff2") }
:root { --fg: #1b1d21; --accent: #1f5fd6 }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed } }
body { font-family: Pretendard, sans-serif; color: var(--fg) }
a { color: var(--accent) }`;
const SIGN_IN_CSS = `.card { background: white; border: 1px solid rgb(223 227 232); font: 600 1rem/1.4 "Noto Sans KR", sans-serif }`;

/**
 * A first run: the accounts app (meta) and the design app (from its URL), with a flow, a failure and a redirect, each
 * capture a step of its walk.
 */
async function firstRun(g: Gallery) {
  const run = await g.run();
  const base = await g.asset(run, "https://accounts.shelf.test/_next/base.css", ACCOUNTS_CSS);
  const signIn = await g.asset(run, "https://accounts.shelf.test/_next/sign-in.css", SIGN_IN_CSS);
  const script = await g.asset(run, "https://accounts.shelf.test/_next/app.js", "console.log(1)", "js");
  const signInMeta = {
    app: "accounts",
    page: "/sign-in",
    page_type: "sign-in",
    flow: "Sign in",
    flow_step: 1,
    patterns: ["form"],
    elements: ["button", "Text field"],
    mode: "light",
    walk: true,
    source: "kept, not read",
  };
  const signInAssets = [base.sha256, signIn.sha256, script.sha256];
  const url = "https://accounts.shelf.test";
  await g.capture(run, {
    url: `${url}/sign-in`,
    lang: "ko",
    meta: { ...signInMeta, title: "로그인" },
    assets: signInAssets,
  });
  await g.capture(run, { url: `${url}/sign-in`, meta: { ...signInMeta, title: "Sign in" }, assets: signInAssets });
  await g.capture(run, {
    url: `${url}/sign-in`,
    viewport: "mobile",
    meta: { ...signInMeta, title: "Sign in" },
    assets: signInAssets,
  });
  const libraryMeta = {
    app: "accounts",
    page: "/library",
    page_type: "list",
    flow: "Sign in",
    flow_step: 2,
    patterns: ["empty-state", "data-table"],
    components: ["LibraryGrid"],
    mode: "light",
    walk: true,
  };
  await g.capture(run, {
    url: `${url}/account/library`,
    auth: true,
    meta: { ...libraryMeta, title: "Library" },
    assets: [base.sha256],
  });
  await g.capture(run, {
    url: `${url}/account/products/12345`,
    auth: true,
    meta: { app: "accounts", title: "Product", page_type: "detail", mode: "light", walk: true },
    assets: [base.sha256],
  });
  const laterLibrary = await g.capture(run, {
    url: `${url}/account/library`,
    auth: true,
    meta: { ...libraryMeta, title: "Library (again)" },
    assets: [base.sha256],
    image: "the later library",
  });
  await g.capture(run, { url: `${url}/account/orders`, auth: true, outcome: "failed", meta: { app: "accounts" } });
  await g.capture(run, { url: `${url}/account/devices`, outcome: "redirected", meta: { app: "accounts" } });
  await g.capture(run, { url: "https://design.shelf.test/screens?platform=web", meta: { walk: true } });
  await g.capture(run, { url: "https://design.shelf.test/screens/42", meta: { title: "Screen", walk: true } });
  return { run, laterLibrary };
}

describe("replaying a collect run", () => {
  it("groups captures into apps, screens with their variants, flows and meta terms", async () => {
    const g = await gallery();
    const { run, laterLibrary } = await firstRun(g);
    const summary = await replayRun(g.db, run, { store });

    expect(summary).toEqual({
      added: { apps: 2, screens: 5, flows: 6 },
      changed: { apps: 0, screens: 0, flows: 0 },
      removed: { apps: 0, screens: 0, flows: 0 },
    });
    expect(await g.runRow(run)).toMatchObject({ status: "replayed", replay: summary, error: null });

    const apps = await g.db.select().from(schema.galleryApps).orderBy(asc(schema.galleryApps.id));
    expect(
      apps.map(({ slug, origin, platform, firstRunId, lastRunId }) => ({
        slug,
        origin,
        platform,
        firstRunId,
        lastRunId,
      })),
    ).toEqual([
      { slug: "accounts", origin: "https://accounts.shelf.test", platform: "web", firstRunId: run, lastRunId: run },
      { slug: "design", origin: "https://design.shelf.test", platform: "web", firstRunId: run, lastRunId: run },
    ]);

    const screens = await g.screens();
    expect(screens.map(({ app, page, title, pageType, status }) => ({ app, page, title, pageType, status }))).toEqual([
      { app: "accounts", page: "/account/products/[id]", title: "Product", pageType: "detail", status: "current" },
      { app: "accounts", page: "/library", title: "Library (again)", pageType: "list", status: "current" },
      { app: "accounts", page: "/sign-in", title: "로그인", pageType: "sign-in", status: "current" },
      { app: "design", page: "/screens", title: null, pageType: null, status: "current" },
      { app: "design", page: "/screens/[id]", title: "Screen", pageType: null, status: "current" },
    ]);
    const [, library, signIn] = screens;
    if (!library || !signIn) throw new Error("missing screens");

    const signInVariants = await g.variants(signIn.id);
    expect(signInVariants.map(({ viewport, lang, auth, mode, title }) => [viewport, lang, auth, mode, title])).toEqual([
      ["desktop", "ko", false, "light", "로그인"],
      ["desktop", "en", false, "light", "Sign in"],
      ["mobile", "en", false, "light", "Sign in"],
    ]);
    const [captured] = await g.db
      .select()
      .from(schema.collectCaptures)
      .where(eq(schema.collectCaptures.id, signInVariants[0]?.captureId ?? 0));
    expect(signInVariants[0]).toMatchObject({
      runId: run,
      url: "https://accounts.shelf.test/sign-in",
      imageKey: captured?.imageKey,
      imageSha256: captured?.imageSha256,
      imageSize: captured?.imageSize,
      imageWidth: 640,
      imageHeight: 400,
      imageType: "png",
      htmlKey: captured?.htmlKey,
      htmlSize: captured?.htmlSize,
    });
    // The same state captured twice: the later capture is the variant.
    expect((await g.variants(library.id)).map((variant) => variant.captureId)).toEqual([laterLibrary]);
    // Words of the app, page, titles, meta terms and the visible text of the HTML (here the URL), each once.
    expect(library.searchText).toBe(
      "account accounts again data empty https library librarygrid list shelf state table test",
    );
    expect(library.searchGrams).toEqual(expect.arrayContaining(["a", "ac", "gr", "ib", "y"]));
    expect(library.searchGrams).not.toContain("z");

    expect(await g.terms(signIn.id)).toMatchObject({
      "page_type:sign-in": 3,
      "pattern:form": 3,
      "element:button": 3,
      "element:text-field": 3,
    });
    const [textField] = await g.db.select().from(schema.galleryTerms).where(eq(schema.galleryTerms.slug, "text-field"));
    expect(textField).toMatchObject({ kind: "element", label: "Text field", generic: false });

    const flows = await g.flows();
    expect(
      flows.map(({ kind, slug, name, auth, viewport, lang, status, steps }) => ({
        kind,
        slug,
        name,
        state: kind === "walk" ? [auth, viewport, lang] : [auth, viewport, lang].every((value) => value === null),
        status,
        steps,
      })),
    ).toEqual([
      {
        kind: "declared",
        slug: "sign-in",
        name: "Sign in",
        state: true,
        status: "current",
        steps: ["/sign-in#1", "/library#2"],
      },
      {
        kind: "walk",
        slug: "signed-in-desktop-en",
        name: null,
        state: [true, "desktop", "en"],
        status: "current",
        steps: ["/library", "/account/products/[id]"],
      },
      ...[
        ["desktop", "en"],
        ["desktop", "ko"],
        ["mobile", "en"],
      ].map(([viewport, lang]) => ({
        kind: "walk",
        slug: `signed-out-${viewport}-${lang}`,
        name: null,
        state: [false, viewport, lang],
        status: "current",
        steps: ["/sign-in"],
      })),
      {
        kind: "walk",
        slug: "signed-out-desktop-en",
        name: null,
        state: [false, "desktop", "en"],
        status: "current",
        steps: ["/screens", "/screens/[id]"],
      },
    ]);
  });

  it("reads fonts and colors from the CSS each screen's captures named, for the screen and for its app", async () => {
    const g = await gallery();
    const { run } = await firstRun(g);
    await replayRun(g.db, run, { store });
    const screens = await g.screens();
    const style = (terms: Record<string, number>) =>
      Object.fromEntries(Object.entries(terms).filter(([key]) => key.startsWith("font:") || key.startsWith("color:")));

    const signIn = screens.find((screen) => screen.page === "/sign-in");
    expect(style(await g.terms(signIn?.id ?? 0))).toEqual({
      "font:pretendard": 2,
      "font:sans-serif": 2,
      "font:noto sans kr": 1,
      "color:#1b1d21": 2,
      "color:#e8eaed": 2,
      "color:#1f5fd6": 2,
      "color:#ffffff": 1,
      "color:#dfe3e8": 1,
    });
    const library = screens.find((screen) => screen.page === "/library");
    expect(style(await g.terms(library?.id ?? 0))).toEqual({
      "font:pretendard": 2,
      "font:sans-serif": 1,
      "color:#1b1d21": 2,
      "color:#e8eaed": 2,
      "color:#1f5fd6": 2,
    });
    const design = screens.find((screen) => screen.page === "/screens");
    expect(style(await g.terms(design?.id ?? 0))).toEqual({});

    const appTerms = await g.db
      .select({
        app: schema.galleryApps.slug,
        kind: schema.galleryTerms.kind,
        slug: schema.galleryTerms.slug,
        uses: schema.galleryAppTerms.uses,
      })
      .from(schema.galleryAppTerms)
      .innerJoin(schema.galleryApps, eq(schema.galleryApps.id, schema.galleryAppTerms.appId))
      .innerJoin(schema.galleryTerms, eq(schema.galleryTerms.id, schema.galleryAppTerms.termId));
    expect(Object.fromEntries(appTerms.map((row) => [`${row.app} ${row.kind}:${row.slug}`, row.uses]))).toEqual({
      "accounts font:pretendard": 2,
      "accounts font:sans-serif": 2,
      "accounts font:noto sans kr": 1,
      "accounts color:#1b1d21": 2,
      "accounts color:#e8eaed": 2,
      "accounts color:#1f5fd6": 2,
      "accounts color:#ffffff": 1,
      "accounts color:#dfe3e8": 1,
    });
    const [pretendard] = await g.db
      .select()
      .from(schema.galleryTerms)
      .where(eq(schema.galleryTerms.slug, "pretendard"));
    const [sans] = await g.db.select().from(schema.galleryTerms).where(eq(schema.galleryTerms.slug, "sans-serif"));
    expect([pretendard?.label, pretendard?.generic, sans?.generic]).toEqual(["Pretendard", false, true]);
  });

  it("refuses a run that does not exist or was never submitted, leaving it as it was", async () => {
    const g = await gallery();
    const open = await g.run("open");
    const refusal = (runId: number) => replayRun(g.db, runId, { store }).catch((error: unknown) => error);
    expect(await refusal(open)).toMatchObject({ name: "ReplayError", code: "not_replayable", runId: open });
    expect(await g.runRow(open)).toMatchObject({ status: "open", error: null });
    expect(await refusal(open + 1000)).toMatchObject({ code: "not_found" });
  });

  it("retires nothing for a run whose visits all failed or were redirected", async () => {
    const g = await gallery();
    const { run } = await firstRun(g);
    await replayRun(g.db, run, { store });
    const before = await g.dump();
    const next = await g.run();
    await g.capture(next, { url: "https://accounts.shelf.test/sign-in", outcome: "failed", meta: { app: "accounts" } });
    await g.capture(next, { url: "https://accounts.shelf.test/account/library", auth: true, outcome: "redirected" });
    // A page gone from an app the gallery does not have makes no app.
    await g.capture(next, { url: "https://support.shelf.test/", outcome: "failed", httpStatus: 404 });
    const nothing = { apps: 0, screens: 0, flows: 0 };
    expect(await replayRun(g.db, next, { store })).toEqual({ added: nothing, changed: nothing, removed: nothing });
    expect(await g.dump()).toEqual(before);
  });
});

/**
 * A second run that walks the accounts app again at desktop, Korean, signed out, finds one page gone (404) from there
 * and another gone (410) from mobile Korean, and fails on a page for now (500).
 */
async function secondRunScenario(g: Gallery) {
  const first = await g.run();
  const home = "https://accounts.shelf.test/home";
  const accounts = (page: string, extra: Record<string, unknown> = {}) => ({
    app: "accounts",
    page,
    walk: true,
    ...extra,
  });
  const onboarding = (step: number) => ({ flow: "onboarding", flow_step: step });
  await g.capture(first, { url: home, lang: "ko", meta: accounts("/home", onboarding(1)) });
  await g.capture(first, { url: home, lang: "en", meta: accounts("/home", onboarding(1)) });
  await g.capture(first, { url: home, lang: "ko", auth: true, meta: accounts("/home") });
  await g.capture(first, { url: `${home}/pricing`, lang: "ko", meta: accounts("/pricing", onboarding(2)) });
  await g.capture(first, { url: `${home}/pricing`, lang: "ko", viewport: "mobile", meta: accounts("/pricing") });
  await g.capture(first, { url: `${home}/legacy`, lang: "ko", meta: accounts("/legacy") });
  await g.capture(first, { url: `${home}/status`, lang: "ko", meta: accounts("/status") });
  await g.capture(first, {
    url: `${home}/same`,
    lang: "ko",
    meta: accounts("/same", { title: "Same" }),
    image: "same",
  });
  await g.capture(first, { url: "https://design.shelf.test/screens", meta: { walk: true } });
  const firstSummary = await replayRun(g.db, first, { store });

  const second = await g.run();
  await g.capture(second, { url: home, lang: "ko", meta: accounts("/home", { flow: "checkout", flow_step: 1 }) });
  await g.capture(second, {
    url: `${home}/status`,
    lang: "ko",
    outcome: "failed",
    httpStatus: 500,
    meta: accounts("/status"),
  });
  await g.capture(second, {
    url: `${home}/same`,
    lang: "ko",
    meta: accounts("/same", { title: "Same" }),
    image: "same",
  });
  await g.capture(second, { url: `${home}/new`, lang: "ko", meta: accounts("/new") });
  await g.capture(second, {
    url: `${home}/legacy`,
    lang: "ko",
    outcome: "failed",
    httpStatus: 404,
    meta: accounts("/legacy"),
  });
  await g.capture(second, {
    url: `${home}/pricing`,
    lang: "ko",
    viewport: "mobile",
    outcome: "failed",
    httpStatus: 410,
    meta: { app: "accounts", page: "/pricing" },
  });
  return { first, second, firstSummary };
}

describe("a newer run", () => {
  it("searches the visible text of the captured HTML, Korean included, and keeps a carried variant's", async () => {
    const g = await gallery();
    const first = await g.run();
    const meta = { app: "accounts", page: "/checkout", title: "Checkout" };
    await g.capture(first, {
      url: "https://accounts.shelf.test/checkout",
      lang: "ko",
      meta: { ...meta, title: "결제" },
      html: `<html><head><title>머리말</title><style>.x{}</style></head><body><h1>간편<b>결제</b>하기</h1>
        <p hidden>숨은글</p><span aria-hidden="true">장식</span><input placeholder="카드 번호"><script>스크립트</script>
        <template>틀</template><p>Ｆｕｌｌ width ＡＢＣ</p></body></html>`,
    });
    await replayRun(g.db, first, { store });
    const [screen] = await g.screens();
    const words = screen?.searchText.split(" ") ?? [];
    expect(words).toEqual(expect.arrayContaining(["간편결제하기", "카드", "번호", "full", "width", "abc", "결제"]));
    for (const unseen of ["머리말", "숨은글", "장식", "스크립트", "틀", "x"]) expect(words).not.toContain(unseen);
    expect(screen?.searchGrams).toEqual(expect.arrayContaining(["결", "결제", "편결", "번호"]));

    // A newer run that captures only the English variant carries the Korean one, and its words.
    const second = await g.run();
    await g.capture(second, {
      url: "https://accounts.shelf.test/checkout",
      meta,
      html: "<main><h1>Pay with one tap</h1></main>",
    });
    await replayRun(g.db, second, { store });
    const current = (await g.screens()).find((row) => row.status === "current");
    expect(current?.runId).toBe(second);
    expect(current?.searchText.split(" ")).toEqual(expect.arrayContaining(["간편결제하기", "tap", "checkout"]));
  });

  it("replays a capture whose HTML is missing from the store, leaving only its page's text unsearched", async () => {
    const g = await gallery();
    const run = await g.run();
    const id = await g.capture(run, {
      url: "https://accounts.shelf.test/orders",
      meta: { app: "accounts", title: "Orders" },
      html: "<main>vanished words</main>",
    });
    const [capture] = await g.db.select().from(schema.collectCaptures).where(eq(schema.collectCaptures.id, id));
    await store.remove(capture?.htmlKey as string);
    await replayRun(g.db, run, { store });
    const [screen] = await g.screens();
    expect(screen?.searchText).toBe("accounts orders");
    expect((await g.runRow(run))?.status).toBe("replayed");
  });

  it("replaces only the screens, variants and walk it captured, and retires what it found gone", async () => {
    const g = await gallery();
    const { first, second, firstSummary } = await secondRunScenario(g);
    expect(firstSummary).toEqual({
      added: { apps: 2, screens: 6, flows: 6 },
      changed: { apps: 0, screens: 0, flows: 0 },
      removed: { apps: 0, screens: 0, flows: 0 },
    });
    const before = await g.screens();
    const summary = await replayRun(g.db, second, { store });
    expect(summary).toEqual({
      added: { apps: 0, screens: 1, flows: 1 },
      changed: { apps: 1, screens: 2, flows: 1 },
      removed: { apps: 0, screens: 1, flows: 0 },
    });

    const screens = await g.screens();
    const current = screens
      .filter((screen) => screen.status === "current")
      .map((screen) => `${screen.app}${screen.page} ${screen.runId === second ? "second" : "first"}`)
      .sort();
    expect(current).toEqual([
      "accounts/home second",
      "accounts/new second",
      "accounts/pricing second",
      "accounts/same second",
      "accounts/status first",
      "design/screens first",
    ]);

    const byPage = (page: string, runId: number) => {
      const screen = screens.find((row) => row.page === page && row.runId === runId);
      if (!screen) throw new Error(`no ${page} of run ${runId}`);
      return screen;
    };
    // /home: its own desktop ko signed-out capture, and the states it did not capture carried over.
    const home = byPage("/home", second);
    const homeVariants = await g.variants(home.id);
    expect(
      homeVariants.map((variant) => [variant.lang, variant.auth, variant.runId === second ? "second" : "first"]),
    ).toEqual([
      ["ko", false, "second"],
      ["ko", true, "first"],
      ["en", false, "first"],
    ]);
    const oldHome = byPage("/home", first);
    expect(oldHome).toMatchObject({ status: "replaced", replacedById: home.id, retiredByRunId: second });
    expect(await g.variants(oldHome.id)).toHaveLength(3);
    expect(before.find((screen) => screen.id === oldHome.id)).toMatchObject({ status: "current", replacedById: null });

    // /pricing answered 410 at mobile ko: only its desktop variant is left.
    const pricing = byPage("/pricing", second);
    expect((await g.variants(pricing.id)).map((variant) => [variant.viewport, variant.runId])).toEqual([
      ["desktop", first],
    ]);
    expect(byPage("/pricing", first)).toMatchObject({ status: "replaced", replacedById: pricing.id });
    // /legacy answered 404 in its only state: removed, no replacement, still readable.
    expect(byPage("/legacy", first)).toMatchObject({ status: "removed", replacedById: null, retiredByRunId: second });
    expect(await g.variants(byPage("/legacy", first).id)).toHaveLength(1);
    // /status failed for now (500): the gallery keeps what it had.
    expect(byPage("/status", first)).toMatchObject({ status: "current", retiredByRunId: null });
    // /same was captured again looking the same: replaced, but not counted as changed.
    expect(byPage("/same", second).contentSha256).toBe(byPage("/same", first).contentSha256);
    expect(byPage("/same", first)).toMatchObject({ status: "replaced", replacedById: byPage("/same", second).id });

    const flows = (await g.flows()).map(({ kind, slug, status, runId, steps }) => ({
      flow: `${kind} ${slug} ${runId === second ? "second" : "first"}`,
      status,
      steps,
    }));
    // The onboarding flow was not declared again and the other walks were not walked again: they stay.
    expect(flows).toEqual([
      { flow: "declared onboarding first", status: "current", steps: ["/home#1", "/pricing#2"] },
      { flow: "walk signed-in-desktop-ko first", status: "current", steps: ["/home"] },
      { flow: "walk signed-out-desktop-en first", status: "current", steps: ["/home"] },
      {
        flow: "walk signed-out-desktop-ko first",
        status: "replaced",
        steps: ["/home", "/pricing", "/legacy", "/status", "/same"],
      },
      { flow: "walk signed-out-mobile-ko first", status: "current", steps: ["/pricing"] },
      { flow: "walk signed-out-desktop-en first", status: "current", steps: ["/screens"] },
      { flow: "declared checkout second", status: "current", steps: ["/home#1"] },
      { flow: "walk signed-out-desktop-ko second", status: "current", steps: ["/home", "/same", "/new"] },
    ]);
  });

  it("makes an older run's replay a refusal that changes nothing", async () => {
    const g = await gallery();
    const { first, second } = await secondRunScenario(g);
    await replayRun(g.db, second, { store });
    const before = await g.dump();
    const error = await replayRun(g.db, first, { store }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ReplayError);
    expect(error).toMatchObject({
      code: "superseded",
      message: `A newer collect run (${second}) has been replayed since this one.`,
    });
    expect(await g.runRow(first)).toMatchObject({ status: "failed", error: (error as Error).message });
    expect(await g.dump()).toEqual(before);
  });
});

/** The design app's 17 pages walked signed out at desktop English and at mobile Korean; /screens also in dark mode. */
const DESIGN_PAGES = ["/", "/screens", "/patterns", "/taxonomy", ...Array.from({ length: 13 }, (_, i) => `/docs/${i}`)];

async function walkedDesignApp(g: Gallery) {
  const run = await g.run();
  for (const [viewport, lang] of [
    ["desktop", "en"],
    ["mobile", "ko"],
  ] as const) {
    for (const page of DESIGN_PAGES) {
      await g.capture(run, {
        url: `https://design.shelf.test${page}`,
        viewport,
        lang,
        meta: { app: "design", page, mode: "light", walk: true },
      });
    }
  }
  await g.capture(run, {
    url: "https://design.shelf.test/screens",
    viewport: "mobile",
    lang: "ko",
    meta: { app: "design", page: "/screens", mode: "dark" },
  });
  await replayRun(g.db, run, { store });
  return run;
}

const walkSteps = async (g: Gallery) =>
  Object.fromEntries(
    (await g.flows()).filter((flow) => flow.status === "current").map((flow) => [flow.slug, flow.steps.length]),
  );

describe("a partial run", () => {
  it("of one page at mobile Korean leaves the walks and every other variant as they were", async () => {
    const g = await gallery();
    const first = await walkedDesignApp(g);
    expect(await walkSteps(g)).toEqual({ "signed-out-desktop-en": 17, "signed-out-mobile-ko": 17 });
    const screensBefore = (await g.screens()).find((screen) => screen.page === "/screens");
    const darkBefore = (await g.variants(screensBefore?.id ?? 0)).find((variant) => variant.mode === "dark");

    const partial = await g.run();
    await g.capture(partial, {
      url: "https://design.shelf.test/patterns",
      viewport: "mobile",
      lang: "ko",
      meta: { app: "design", page: "/patterns", mode: "dark" },
    });
    const summary = await replayRun(g.db, partial, { store });
    expect(summary).toEqual({
      added: { apps: 0, screens: 0, flows: 0 },
      changed: { apps: 1, screens: 1, flows: 0 },
      removed: { apps: 0, screens: 0, flows: 0 },
    });
    const after = await g.dump();

    expect(await walkSteps(g)).toEqual({ "signed-out-desktop-en": 17, "signed-out-mobile-ko": 17 });
    expect((await g.flows()).every((flow) => flow.runId === first && flow.status === "current")).toBe(true);
    const current = (await g.screens()).filter((screen) => screen.status === "current");
    expect(current).toHaveLength(17);
    expect(current.filter((screen) => screen.runId === partial).map((screen) => screen.page)).toEqual(["/patterns"]);
    const screens = current.find((screen) => screen.page === "/screens");
    expect(screens?.id).toBe(screensBefore?.id);
    expect((await g.variants(screens?.id ?? 0)).find((variant) => variant.mode === "dark")).toEqual(darkBefore);
    const patterns = current.find((screen) => screen.page === "/patterns");
    expect(
      (await g.variants(patterns?.id ?? 0)).map((variant) => [
        variant.viewport,
        variant.lang,
        variant.mode,
        variant.runId,
      ]),
    ).toEqual([
      ["desktop", "en", "light", first],
      ["mobile", "ko", "light", first],
      ["mobile", "ko", "dark", partial],
    ]);

    // Submitted again, it gives the same rows.
    expect(await replayRun(g.db, partial, { store })).toEqual(summary);
    expect(await g.dump()).toEqual(after);
  });

  it("that walks the app again at mobile Korean replaces that walk only", async () => {
    const g = await gallery();
    await walkedDesignApp(g);
    const again = await g.run();
    for (const page of ["/", "/screens", "/taxonomy"]) {
      await g.capture(again, {
        url: `https://design.shelf.test${page}`,
        viewport: "mobile",
        lang: "ko",
        meta: { app: "design", page, mode: "light", walk: true },
      });
    }
    expect((await replayRun(g.db, again, { store })).changed.flows).toBe(1);
    expect(await walkSteps(g)).toEqual({ "signed-out-desktop-en": 17, "signed-out-mobile-ko": 3 });
    const walks = (await g.flows()).filter((flow) => flow.slug === "signed-out-mobile-ko");
    expect(walks.map(({ status, runId }) => [status, runId])).toEqual([
      ["replaced", again - 1],
      ["current", again],
    ]);
    expect((await g.screens()).filter((screen) => screen.status === "current")).toHaveLength(17);
  });
});

describe("determinism", () => {
  it("gives identical rows and the same summary when the same run is replayed again", async () => {
    const g = await gallery();
    const { first, second } = await secondRunScenario(g);
    const afterFirst = await g.dump();
    expect(await replayRun(g.db, first, { store })).toEqual({
      added: { apps: 2, screens: 6, flows: 6 },
      changed: { apps: 0, screens: 0, flows: 0 },
      removed: { apps: 0, screens: 0, flows: 0 },
    });
    expect(await g.dump()).toEqual(afterFirst);

    const summary = await replayRun(g.db, second, { store });
    const afterSecond = await g.dump();
    expect(afterSecond).not.toEqual(afterFirst);
    expect(await replayRun(g.db, second, { store })).toEqual(summary);
    expect(await g.dump()).toEqual(afterSecond);
  });

  it("gives the rows of one replay when two replays of a run race", async () => {
    const g = await gallery();
    const { run } = await firstRun(g);
    await replayRun(g.db, run, { store });
    const once = await g.dump();
    const results = await Promise.all([replayRun(g.db, run, { store }), replayRun(g.db, run, { store })]);
    expect(results[0]).toEqual(results[1]);
    expect(await g.dump()).toEqual(once);
    expect(await g.runRow(run)).toMatchObject({ status: "replayed" });
  });
});

describe("a replay that fails", () => {
  it("on a CSS asset missing from the store leaves the gallery as it was and the run failed, naming the asset", async () => {
    const g = await gallery();
    const { run } = await firstRun(g);
    await replayRun(g.db, run, { store });
    const before = await g.dump();

    const next = await g.run();
    const lost = await g.asset(next, "https://accounts.shelf.test/_next/lost.css", "a { color: red }");
    await g.capture(next, {
      url: "https://accounts.shelf.test/sign-in",
      meta: { app: "accounts" },
      assets: [lost.sha256],
    });
    await store.remove(lost.key);
    const error = await replayRun(g.db, next, { store }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      name: "ReplayError",
      code: "failed",
      message: "The CSS asset https://accounts.shelf.test/_next/lost.css has no bytes in the artifact store.",
    });
    expect(await g.runRow(next)).toMatchObject({ status: "failed", error: (error as Error).message, replay: null });
    expect(await g.dump()).toEqual(before);
  });

  it("midway through its transaction leaves the gallery exactly as before, and can be replayed again", async () => {
    const g = await gallery();
    const { first, second } = await secondRunScenario(g);
    const before = await g.dump();
    const sql = databases[databases.length - 1]?.sql;
    if (!sql) throw new Error("no database");
    // Flow steps are written after the apps, terms, screens, variants and flows: fail there.
    await sql.unsafe(`
      create function fail_flow_steps() returns trigger language plpgsql as $$
      begin raise exception 'injected failure'; end $$;
      create trigger fail_flow_steps before insert on gallery_flow_steps execute function fail_flow_steps();`);
    const error = await replayRun(g.db, second, { store }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: "failed",
      message: "The replay failed on an internal error; the gallery is unchanged.",
    });
    expect(String((error as Error).cause)).toMatch(/gallery_flow_steps|injected failure|Failed query/);
    expect(await g.runRow(second)).toMatchObject({ status: "failed" });
    expect(await g.dump()).toEqual(before);
    expect(before.gallery_screens?.every((screen) => screen.run_id === first)).toBe(true);

    await sql.unsafe("drop trigger fail_flow_steps on gallery_flow_steps; drop function fail_flow_steps();");
    await replayRun(g.db, second, { store });
    expect(await g.runRow(second)).toMatchObject({ status: "replayed", error: null });
  });
});
