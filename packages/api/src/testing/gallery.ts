import { randomBytes } from "node:crypto";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import type { CollectLang, CollectViewport, ColorMode } from "@shelf/db/enums";
import type { ArtifactStore } from "@shelf/server/storage/store";
import type { Delivery } from "../delivery";
import { replayRun } from "../design-gallery/replay";
import { createApiClient, createTestDesignEdge } from "./harness";
import { mulberry32 } from "./mulberry32";

/*
 * Galleries for tests, made the way collectors make them: runs of captures (images, HTML and CSS in the real store)
 * replayed by the real replay. `randomGallery` draws a few hundred screens from a seed, so a failure can be replayed.
 */

export type VariantState = { viewport: CollectViewport; lang: CollectLang; auth: boolean; mode: ColorMode | null };

export type ScreenSpec = {
  /** The app's host: `<app>.gallery.test` (an unknown host is an app of its own). */
  app: string;
  page: string;
  states: VariantState[];
  title: { ko: string; en: string } | null;
  pageType: string | null;
  patterns: string[];
  components: string[];
  elements: string[];
  /** Visible text of the page's HTML in each language. */
  text: { ko: string; en: string };
  /** One of the sheets `seedRun` was given (fonts and colors), or none. */
  sheet: number | null;
  /** Seconds after the epoch of the run: the captures' times (ties happen on purpose). */
  at: number;
  /** A flow the collector declared the page a step of. */
  flow?: { name: string; step: number };
  /** The page answered 404 in its states (the replay retires it there) instead of being captured. */
  gone?: boolean;
};

/** A small deterministic generator (mulberry32): the same seed draws the same gallery. */
export function seededRandom(seed: number) {
  const next = mulberry32(seed);
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  const some = <T>(list: readonly T[], most: number): T[] => {
    const count = int(most + 1);
    return [...new Set(Array.from({ length: count }, () => pick(list)))];
  };
  return { next, int, pick, some };
}

export const KOREAN_WORDS = [
  "결제",
  "간편결제",
  "로그인",
  "회원가입",
  "장바구니",
  "주문내역",
  "설정",
  "검색",
  "알림",
  "프로필",
  "상품",
  "라이브러리",
  "구독",
  "환불",
  "글",
] as const;
export const ENGLISH_WORDS = [
  "checkout",
  "payment",
  "sign",
  "library",
  "settings",
  "search",
  "profile",
  "order",
  "history",
  "subscription",
  "refund",
  "cart",
  "notifications",
  "a",
] as const;
const PAGE_TYPES = ["home", "list", "detail", "sign-in", "settings", "form"] as const;
const PATTERNS = [
  "empty-state",
  "data-table",
  "pagination",
  "search",
  "filter",
  "tabs",
  "card-grid",
  "dialog",
  "stepper",
  "toast",
  "Inline Validation",
] as const;
const COMPONENTS = ["LibraryGrid", "PriceTag", "OrderRow", "KeyList", "DeviceCard", "Avatar"] as const;
const ELEMENTS = ["button", "Text field", "link", "checkbox", "select", "badge", "image", "icon"] as const;
export const GALLERY_SHEETS = [
  'body { font-family: "Pretendard", sans-serif; color: #1b1d21; background: #ffffff }',
  "body { font-family: Inter, system-ui; color: #0a0a0a } a { color: #1f5fd6 }",
  '.card { font: 600 1rem/1.4 "Noto Sans KR", sans-serif; border-color: #dfe3e8 } a { color: #1f5fd6 }',
  "code { font-family: ui-monospace, monospace; color: #b42318 }",
] as const;

const VIEWPORTS: CollectViewport[] = ["desktop", "mobile"];
const LANGS: CollectLang[] = ["ko", "en"];
const MODES: (ColorMode | null)[] = ["light", "dark", null];

/** A random gallery of `count` screens over `apps` apps: every filter has values to find and values to miss. */
export function randomScreens(seed: number, count: number, apps = 6): ScreenSpec[] {
  const random = seededRandom(seed);
  const screens: ScreenSpec[] = [];
  for (let index = 0; index < count; index++) {
    const states = new Map<string, VariantState>();
    const wanted = 1 + random.int(4);
    for (let attempt = 0; attempt < wanted; attempt++) {
      const state = {
        viewport: random.pick(VIEWPORTS),
        lang: random.pick(LANGS),
        auth: random.next() < 0.3,
        mode: random.pick(MODES),
      };
      states.set(`${state.viewport}|${state.lang}|${state.auth}|${state.mode}`, state);
    }
    const words = (list: readonly string[]) => random.some(list, 4).join(" ");
    screens.push({
      app: `app-${random.int(apps)}`,
      page: `/page-${index}`,
      states: [...states.values()],
      title:
        random.next() < 0.9
          ? { ko: `${random.pick(KOREAN_WORDS)} 화면`, en: `${random.pick(ENGLISH_WORDS)} page` }
          : null,
      pageType: random.next() < 0.85 ? random.pick(PAGE_TYPES) : null,
      patterns: random.some(PATTERNS, 3),
      components: random.some(COMPONENTS, 2),
      elements: random.some(ELEMENTS, 3),
      text: { ko: words(KOREAN_WORDS), en: words(ENGLISH_WORDS) },
      sheet: random.next() < 0.8 ? random.int(GALLERY_SHEETS.length) : null,
      // Few distinct times: screens share them, and ties must still page without overlap.
      at: random.int(Math.max(1, Math.floor(count / 3))),
    });
  }
  return screens;
}

/** One submitted run of the screens' captures (every state of each), replayed; returns the run's id. */
export async function seedRun(
  db: Database,
  store: ArtifactStore,
  screens: readonly ScreenSpec[],
  options: { start?: Date; buildVersions?: string[] } = {},
): Promise<number> {
  const start = options.start ?? new Date(Date.UTC(2026, 0, 1));
  const [run] = await db
    .insert(schema.collectRuns)
    .values({
      status: "submitted",
      viewports: ["desktop", "mobile"],
      langs: ["ko", "en"],
      openerName: "gallery-test",
      leaseExpiresAt: new Date(),
      submittedAt: new Date(),
      buildVersions: options.buildVersions ?? null,
    })
    .returning({ id: schema.collectRuns.id });
  if (!run) throw new Error("no run");
  const sheets: string[] = [];
  for (const [index, css] of GALLERY_SHEETS.entries()) {
    const stored = await store.put([Buffer.from(css)], "text/css");
    await db.insert(schema.collectAssets).values({
      runId: run.id,
      sha256: stored.sha256,
      type: "css",
      url: `https://assets.gallery.test/${index}.css`,
      size: stored.size,
      objectKey: stored.key,
    });
    sheets.push(stored.sha256);
  }
  const captures: (typeof schema.collectCaptures.$inferInsert)[] = [];
  for (const screen of screens) {
    for (const state of screen.states) {
      const image = await store.put(
        [Buffer.from(`${screen.app}${screen.page} ${JSON.stringify(state)} ${run.id}`)],
        "image/png",
      );
      const text = screen.text[state.lang];
      const html = await store.put(
        [Buffer.from(`<html><head><title>x</title></head><body><main><p>${text}</p></main></body></html>`)],
        "text/html",
      );
      const url = `https://${screen.app}.gallery.test${screen.page}`;
      captures.push({
        runId: run.id,
        key: randomBytes(20).toString("hex"),
        url,
        viewport: state.viewport,
        lang: state.lang,
        auth: state.auth,
        outcome: screen.gone ? "failed" : "ok",
        finalUrl: url,
        httpStatus: screen.gone ? 404 : 200,
        meta: {
          walk: true,
          ...(screen.title ? { title: screen.title[state.lang] } : {}),
          ...(screen.pageType ? { page_type: screen.pageType } : {}),
          patterns: screen.patterns,
          components: screen.components,
          elements: screen.elements,
          ...(state.mode ? { mode: state.mode } : {}),
          ...(screen.flow ? { flow: screen.flow.name, flow_step: screen.flow.step } : {}),
        },
        imageSha256: image.sha256,
        imageType: "png",
        imageWidth: state.viewport === "desktop" ? 640 : 195,
        imageHeight: 400,
        imageSize: image.size,
        imageKey: image.key,
        htmlSha256: html.sha256,
        htmlSize: html.size,
        htmlKey: html.key,
        assets: screen.sheet === null ? [] : [sheets[screen.sheet] as string],
        createdAt: new Date(start.getTime() + screen.at * 1000),
      });
    }
  }
  for (let index = 0; index < captures.length; index += 500) {
    await db.insert(schema.collectCaptures).values(captures.slice(index, index + 500));
  }
  await replayRun(db, run.id, { store });
  return run.id;
}

/** The design API's edge over a test database, with a rate limit no test reaches, and a client that sends it requests. */
export function galleryApi(db: Database, delivery: Delivery) {
  const edge = createTestDesignEdge(db, { delivery });
  return { edge, request: createApiClient(db, { edge }) };
}
