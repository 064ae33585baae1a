import { createHash } from "node:crypto";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Delivery } from "../../delivery";
import { createDesignApiEdge } from "../../design-api";
import { createApiClient, TEST_BASE_URL, testLog } from "../../testing";
import { createTestDelivery } from "../../testing/delivery";
import { galleryApi, type ScreenSpec, seedRun, type VariantState } from "../../testing/gallery";

/*
 * A screen, an app, the patterns, the taxonomy and images over HTTP, on a small gallery whose every row is known:
 * two runs of a shop and a blog, the second replacing the cart page, finding the payment page gone (404) and keeping
 * help.
 */

let testDb: TestDatabase;
let delivery: Delivery;
let request: ReturnType<typeof galleryApi>["request"];
let runs: { first: number; second: number };
let ids: Record<"cart1" | "cart2" | "pay" | "help" | "home" | "shop" | "blog", number>;

const state = (
  viewport: VariantState["viewport"],
  lang: VariantState["lang"],
  auth: boolean,
  mode: VariantState["mode"],
) => ({
  viewport,
  lang,
  auth,
  mode,
});
const base: Pick<ScreenSpec, "components" | "elements" | "text" | "sheet" | "title"> = {
  components: [],
  elements: [],
  text: { ko: "", en: "" },
  sheet: null,
  title: null,
};
const cart: ScreenSpec = {
  ...base,
  app: "shop",
  page: "/cart",
  states: [
    state("desktop", "ko", false, "light"),
    state("desktop", "en", false, "light"),
    state("mobile", "en", false, "light"),
    state("desktop", "en", true, "dark"),
  ],
  title: { ko: "장바구니", en: "Cart" },
  pageType: "list",
  patterns: ["empty-state", "Custom Thing"],
  components: ["PriceTag"],
  elements: ["button"],
  text: { ko: "담은 상품이 없습니다", en: "Your cart is empty" },
  sheet: 0,
  at: 10,
  flow: { name: "Buy", step: 1 },
};
const pay: ScreenSpec = {
  ...base,
  app: "shop",
  page: "/pay",
  states: [state("desktop", "en", false, "light")],
  pageType: "form",
  patterns: ["stepper"],
  sheet: 1,
  at: 20,
  flow: { name: "Buy", step: 2 },
};
const help: ScreenSpec = {
  ...base,
  app: "shop",
  page: "/help",
  states: [state("mobile", "ko", false, null)],
  pageType: null,
  patterns: [],
  at: 5,
};
const home: ScreenSpec = {
  ...base,
  app: "blog",
  page: "/",
  states: [state("desktop", "en", false, "light")],
  pageType: "home",
  patterns: ["card-grid", "empty-state"],
  at: 30,
};

beforeAll(async () => {
  testDb = await createTestDatabase();
  delivery = await createTestDelivery();
  request = galleryApi(testDb.db, delivery).request;
  const first = await seedRun(testDb.db, delivery.store, [cart, pay, help, home], { buildVersions: ["2026.11.1"] });
  const again: ScreenSpec = {
    ...cart,
    states: [state("desktop", "en", false, "light")],
    patterns: ["tabs"],
    at: 100,
    flow: undefined,
  };
  const second = await seedRun(testDb.db, delivery.store, [again, { ...pay, gone: true }], {
    buildVersions: ["2026.11.2"],
  });
  runs = { first, second };
  const screen = async (app: string, page: string, runId: number) => {
    const [row] = await testDb.db
      .select({ id: schema.galleryScreens.id, appId: schema.galleryScreens.appId })
      .from(schema.galleryScreens)
      .innerJoin(schema.galleryApps, eq(schema.galleryApps.id, schema.galleryScreens.appId))
      .where(
        and(
          eq(schema.galleryApps.slug, `${app}.gallery.test`),
          eq(schema.galleryScreens.page, page),
          eq(schema.galleryScreens.runId, runId),
        ),
      );
    if (!row) throw new Error(`no screen ${app} ${page}`);
    return row;
  };
  const cart1 = await screen("shop", "/cart", first);
  const blog = await screen("blog", "/", first);
  ids = {
    cart1: cart1.id,
    cart2: (await screen("shop", "/cart", second)).id,
    pay: (await screen("shop", "/pay", first)).id,
    help: (await screen("shop", "/help", first)).id,
    home: blog.id,
    shop: cart1.appId,
    blog: blog.appId,
  };
}, 60_000);
afterAll(() => testDb.drop());

const imageUrl = (screen: number, variant: number) =>
  `${TEST_BASE_URL}/api/v1/screens/${screen}/variants/${variant}/image`;

describe("a screen by id", () => {
  it("shows a current screen's variants in order, with images, sizes, tags, fonts, colors and evidence", async () => {
    const answer = await request(`/api/v1/screens/${ids.cart2}`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("public, max-age=60");
    const { screen } = answer.body;
    expect(screen).toMatchObject({
      id: ids.cart2,
      app: { id: ids.shop, slug: "shop.gallery.test", platform: "web", origin: "https://shop.gallery.test" },
      page: "/cart",
      title: "장바구니",
      page_type: { slug: "list", label: "list" },
      status: "current",
      current: true,
      replaced_by_id: null,
      current_id: ids.cart2,
      run_id: runs.second,
      retired_by_run_id: null,
    });
    // Its own variant (the second run's) and the three the second run did not capture again, carried.
    expect(
      screen.variants.map((v: { viewport: string; lang: string; signed_in: boolean; mode: string }) => [
        v.viewport,
        v.lang,
        v.signed_in,
        v.mode,
      ]),
    ).toEqual([
      ["desktop", "ko", false, "light"],
      ["desktop", "en", false, "light"],
      ["desktop", "en", true, "dark"],
      ["mobile", "en", false, "light"],
    ]);
    const captures = await testDb.db.select().from(schema.collectCaptures);
    for (const variant of screen.variants) {
      const row = await testDb.db
        .select()
        .from(schema.galleryScreenVariants)
        .where(eq(schema.galleryScreenVariants.id, variant.id));
      const capture = captures.find((each) => each.id === row[0]?.captureId);
      const own = variant.viewport === "desktop" && variant.lang === "en" && !variant.signed_in;
      expect(variant).toEqual({
        id: variant.id,
        viewport: variant.viewport,
        lang: variant.lang,
        signed_in: variant.signed_in,
        mode: variant.mode,
        title: variant.lang === "ko" ? "장바구니" : "Cart",
        url: "https://shop.gallery.test/cart",
        image: {
          url: imageUrl(ids.cart2, variant.id),
          type: "png",
          width: variant.viewport === "desktop" ? 640 : 195,
          height: 400,
          size: capture?.imageSize,
          sha256: capture?.imageSha256,
        },
        evidence: {
          run_id: own ? runs.second : runs.first,
          capture_key: capture?.key,
          final_url: "https://shop.gallery.test/cart",
          http_status: 200,
          build_versions: own ? ["2026.11.2"] : ["2026.11.1"],
          captured_at: capture?.createdAt.toISOString(),
        },
      });
    }
    expect(screen.patterns).toEqual([
      { slug: "custom-thing", label: "Custom Thing", uses: 3 },
      { slug: "empty-state", label: "empty-state", uses: 3 },
      { slug: "tabs", label: "tabs", uses: 1 },
    ]);
    expect(screen.components).toEqual([{ slug: "pricetag", label: "PriceTag", uses: 4 }]);
    expect(screen.elements).toEqual([{ slug: "button", label: "button", uses: 4 }]);
    expect(screen.fonts.map((font: { slug: string; generic: boolean }) => [font.slug, font.generic])).toEqual(
      expect.arrayContaining([
        ["pretendard", false],
        ["sans-serif", true],
      ]),
    );
    expect(screen.colors.map((color: { slug: string }) => color.slug)).toEqual(
      expect.arrayContaining(["#1b1d21", "#ffffff"]),
    );
    expect(screen.history).toEqual([
      { id: ids.cart1, run_id: runs.first, status: "replaced", captured_at: expect.any(String) },
      { id: ids.cart2, run_id: runs.second, status: "current", captured_at: expect.any(String) },
    ]);
  });

  it("keeps history reachable: a replaced screen names its replacement, a removed one says its page is gone", async () => {
    const replaced = (await request(`/api/v1/screens/${ids.cart1}`)).body.screen;
    expect(replaced).toMatchObject({
      status: "replaced",
      current: false,
      replaced_by_id: ids.cart2,
      current_id: ids.cart2,
      retired_by_run_id: runs.second,
      run_id: runs.first,
    });
    expect(replaced.patterns.map((pattern: { slug: string }) => pattern.slug)).toEqual(["custom-thing", "empty-state"]);
    const removed = (await request(`/api/v1/screens/${ids.pay}`)).body.screen;
    expect(removed).toMatchObject({
      status: "removed",
      current: false,
      replaced_by_id: null,
      current_id: null,
      retired_by_run_id: runs.second,
    });
    expect(removed.history).toEqual([
      { id: ids.pay, run_id: runs.first, status: "removed", captured_at: expect.any(String) },
    ]);
    // History is reachable but never listed.
    const listed = (await request("/api/v1/screens?facets=false")).body.items.map((item: { id: number }) => item.id);
    expect(listed.sort()).toEqual([ids.cart2, ids.help, ids.home].sort());
  });

  it("answers 404 for a screen that never was and 422 for an id that is not one", async () => {
    expect((await request("/api/v1/screens/2000000000")).status).toBe(404);
    expect((await request("/api/v1/screens/0")).status).toBe(422);
    expect((await request("/api/v1/screens/abc")).status).toBe(422);
  });
});

describe("an app by id", () => {
  it("walks its current flows as ordered current screens, and lists its current screens", async () => {
    const answer = await request(`/api/v1/apps/${ids.shop}`);
    expect(answer.status, answer.text).toBe(200);
    const { app } = answer.body;
    expect(app).toMatchObject({
      id: ids.shop,
      slug: "shop.gallery.test",
      platform: "web",
      origin: "https://shop.gallery.test",
      first_run_id: runs.first,
      last_run_id: runs.second,
      screen_count: 2,
    });
    expect(app.screens.map((card: { id: number }) => card.id)).toEqual([ids.cart2, ids.help]);
    const flows = app.flows.map(
      (flow: {
        kind: string;
        slug: string;
        name: string | null;
        signed_in: boolean | null;
        viewport: string | null;
        lang: string | null;
        run_id: number;
        steps: { position: number; flow_step: number | null; screen: { id: number } }[];
      }) => ({
        kind: flow.kind,
        slug: flow.slug,
        name: flow.name,
        state: [flow.signed_in, flow.viewport, flow.lang],
        run_id: flow.run_id,
        steps: flow.steps.map((step) => [step.position, step.flow_step, step.screen.id]),
      }),
    );
    const walk = (slug: string, runId: number, steps: number[]) => {
      const [side, viewport, lang] = slug.replace("signed-", "signed_").split("-");
      return {
        kind: "walk",
        slug,
        name: null,
        state: [side === "signed_in", viewport, lang],
        run_id: runId,
        steps: steps.map((id, index) => [index + 1, null, id]),
      };
    };
    expect(flows).toEqual([
      // Declared in the first run: its cart step shows the cart as it is now; the payment page is gone.
      {
        kind: "declared",
        slug: "buy",
        name: "Buy",
        state: [null, null, null],
        run_id: runs.first,
        steps: [[1, 1, ids.cart2]],
      },
      // A walk per signed-in state, viewport and language; the second run walked desktop English again only.
      walk("signed-in-desktop-en", runs.first, [ids.cart2]),
      walk("signed-out-desktop-en", runs.second, [ids.cart2]),
      walk("signed-out-desktop-ko", runs.first, [ids.cart2]),
      walk("signed-out-mobile-en", runs.first, [ids.cart2]),
      walk("signed-out-mobile-ko", runs.first, [ids.help]),
    ]);
    const step = app.flows[0].steps[0].screen;
    expect(step.thumbnail.image.url).toBe(imageUrl(ids.cart2, step.thumbnail.variant_id));
    expect(app.fonts.length).toBeGreaterThan(0);
  });

  it("answers 404 for an app that does not exist", async () => {
    expect((await request("/api/v1/apps/2000000000")).status).toBe(404);
  });
});

describe("patterns and the taxonomy", () => {
  it("lists patterns with their definitions (null for one the gallery does not know) and current counts", async () => {
    const answer = await request("/api/v1/patterns");
    expect(answer.status).toBe(200);
    expect(answer.body.items).toEqual([
      { slug: "empty-state", label: "empty-state", definition: expect.stringContaining("nothing"), count: 2 },
      { slug: "card-grid", label: "card-grid", definition: expect.any(String), count: 1 },
      { slug: "custom-thing", label: "Custom Thing", definition: null, count: 1 },
      { slug: "tabs", label: "tabs", definition: expect.any(String), count: 1 },
    ]);
    expect(answer.body.total).toBe(4);
  });

  it("counts every kind's terms over current screens, or one kind; an unknown kind is 422", async () => {
    const whole = (await request("/api/v1/taxonomy")).body.taxonomy;
    expect(Object.keys(whole).sort()).toEqual(["colors", "components", "elements", "fonts", "page_types", "patterns"]);
    expect(whole.page_types).toEqual([
      { slug: "home", label: "home", count: 1 },
      { slug: "list", label: "list", count: 1 },
    ]);
    expect(whole.patterns.map((term: { slug: string; count: number }) => [term.slug, term.count])).toEqual([
      ["empty-state", 2],
      ["card-grid", 1],
      ["custom-thing", 1],
      ["tabs", 1],
    ]);
    expect(whole.fonts.find((font: { slug: string }) => font.slug === "sans-serif")).toEqual({
      slug: "sans-serif",
      label: "sans-serif",
      count: 1,
      generic: true,
    });
    const fonts = (await request("/api/v1/taxonomy?kind=font")).body.taxonomy;
    expect(Object.keys(fonts)).toEqual(["fonts"]);
    expect(fonts.fonts).toEqual(whole.fonts);
    const refused = await request("/api/v1/taxonomy?kind=shape");
    expect([refused.status, Object.keys(refused.body.errors)]).toEqual([422, ["kind"]]);
  });
});

describe("images", () => {
  async function firstVariant() {
    const { screen } = (await request(`/api/v1/screens/${ids.cart2}`)).body;
    const variant = screen.variants[0];
    const bytes = Buffer.from(
      `shop/cart ${JSON.stringify({ viewport: "desktop", lang: "ko", auth: false, mode: "light" })} ${runs.first}`,
    );
    return { variant, bytes, path: `/api/v1/screens/${ids.cart2}/variants/${variant.id}/image` };
  }

  it("serves the stored bytes with a strong ETag, a year's immutable caching, Range and 304", async () => {
    const { variant, bytes, path } = await firstVariant();
    const whole = await request(path);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(bytes)).toBe(true);
    expect(createHash("sha256").update(whole.bytes).digest("hex")).toBe(variant.image.sha256);
    expect(
      Object.fromEntries(
        ["content-type", "etag", "cache-control", "accept-ranges", "content-length"].map((name) => [
          name,
          whole.headers.get(name),
        ]),
      ),
    ).toEqual({
      "content-type": "image/png",
      etag: `"${variant.image.sha256}"`,
      "cache-control": "public, max-age=31536000, immutable",
      "accept-ranges": "bytes",
      "content-length": String(bytes.length),
    });
    const part = await request(path, { headers: { range: "bytes=0-3" } });
    expect([part.status, part.text, part.headers.get("content-range")]).toEqual([
      206,
      "shop",
      `bytes 0-3/${bytes.length}`,
    ]);
    const suffix = await request(path, { headers: { range: "bytes=-2" } });
    expect(suffix.bytes.equals(bytes.subarray(-2))).toBe(true);
    const cached = await request(path, { headers: { "if-none-match": `"${variant.image.sha256}"` } });
    expect([cached.status, cached.bytes.length]).toEqual([304, 0]);
    const head = await request(path, { method: "HEAD" });
    expect([head.status, head.bytes.length, head.headers.get("content-length")]).toEqual([
      200,
      0,
      String(bytes.length),
    ]);
    const outside = await request(path, { headers: { range: `bytes=${bytes.length + 10}-` } });
    expect(outside.status).toBe(416);
  });

  it("answers 404 for a variant of another screen and for one that does not exist", async () => {
    const { variant } = await firstVariant();
    expect((await request(`/api/v1/screens/${ids.help}/variants/${variant.id}/image`)).status).toBe(404);
    expect((await request(`/api/v1/screens/${ids.cart2}/variants/2000000000/image`)).status).toBe(404);
  });
});

describe("limits per client address", () => {
  it("limits the gallery per address, images apart from the rest, each address on its own", async () => {
    const limited = createApiClient(testDb.db, {
      edge: createDesignApiEdge({
        db: testDb.db,
        delivery,
        baseUrl: TEST_BASE_URL,
        rateLimiter: createRateLimiter({ points: 3, name: "gallery-test" }),
        routeLimiter: (name) => createRateLimiter({ points: 4, name }),
        log: testLog,
      }),
    });
    const { path } = await (async () => {
      const { screen } = (await request(`/api/v1/screens/${ids.cart2}`)).body;
      return { path: `/api/v1/screens/${ids.cart2}/variants/${screen.variants[0].id}/image` };
    })();
    const from = (clientAddress: string, target: string) => limited(target, { clientAddress });
    // Parallel requests from one address: exactly the limit's worth are served.
    const burst = await Promise.all(Array.from({ length: 5 }, () => from("198.51.100.1", "/api/v1/patterns")));
    expect(burst.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429, 429]);
    const refused = burst.find((answer) => answer.status === 429);
    expect(refused?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused?.body.error).toBe("rate_limited");
    // Another address is not held back by the first one's use.
    expect((await from("198.51.100.2", "/api/v1/patterns")).status).toBe(200);
    // Images count against their own limit: the first address, out of API requests, still loads them, up to theirs.
    const images = await Promise.all(Array.from({ length: 5 }, () => from("198.51.100.1", path)));
    expect(images.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 429]);
    expect((await from("198.51.100.3", path)).status).toBe(200);
  });
});
