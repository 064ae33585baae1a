import { createHash } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDesignToken } from "../../auth/design-token-admin";
import type { Delivery } from "../../delivery";
import { contractMismatch, createApiClient, createTestDelivery, createTestDesignEdge } from "../../testing";
import { type ScreenSpec, seedRun, type VariantState } from "../../testing/gallery";
import { recordSecret } from "../../testing/secrets";
import { RunAnswer } from "./schemas";
import { fixture } from "./test-images";

/*
 * A run's status says, before submit, what its replay would do to the gallery: here the partial run (the
 * design app, mobile, Korean, one capture of /patterns) over a gallery with the design app walked 17 steps at desktop
 * English and at mobile Korean.
 */

let testDb: TestDatabase;
let delivery: Delivery;
let request: ReturnType<typeof createApiClient>;
let collector: string;

const RUNS = "/api/agent/collect/runs";
// Page names the replay keeps as they are (a number would become `[id]`).
const PAGES = [
  "/",
  "/screens",
  "/patterns",
  "/taxonomy",
  ...Array.from({ length: 13 }, (_, i) => `/docs/${"abcdefghijklm"[i]}`),
];
const light = (viewport: VariantState["viewport"], lang: VariantState["lang"]): VariantState => ({
  viewport,
  lang,
  auth: false,
  mode: "light",
});

beforeAll(async () => {
  testDb = await createTestDatabase();
  delivery = await createTestDelivery();
  const edge = createTestDesignEdge(testDb.db, { delivery });
  request = createApiClient(testDb.db, { edge });
  const screens: ScreenSpec[] = PAGES.map((page, index) => ({
    app: "design",
    page,
    states: [
      light("desktop", "en"),
      light("mobile", "ko"),
      ...(page === "/screens" ? [{ ...light("mobile", "ko"), mode: "dark" as const }] : []),
    ],
    title: null,
    pageType: null,
    patterns: [],
    components: [],
    elements: [],
    text: { ko: "", en: "" },
    sheet: null,
    at: index,
  }));
  await seedRun(testDb.db, delivery.store, screens);
  const created = await createDesignToken(testDb.db, { name: "partial", roles: ["collect"] }, "shelf");
  recordSecret(created.token);
  collector = created.token;
}, 60_000);
afterAll(() => testDb.drop());

let keys = 0;
function capture(run: number, page: string, fields: Record<string, string> = {}, meta: object = {}) {
  const data = new FormData();
  const values = {
    key: createHash("sha1").update(`preview-${++keys}`).digest("hex"),
    url: `https://design.gallery.test${page}`,
    viewport: "mobile",
    lang: "ko",
    auth: "false",
    outcome: "ok",
    meta: JSON.stringify({ app: "design", page, ...meta }),
    ...fields,
  };
  for (const [name, value] of Object.entries(values)) data.append(name, value);
  data.append("image", new Blob([new Uint8Array(fixture("7x5.png"))], { type: "image/png" }), "page.png");
  const encoded = new Response(data);
  return encoded.arrayBuffer().then((body) =>
    request(`${RUNS}/${run}/captures`, {
      method: "POST",
      key: collector,
      headers: { "content-type": encoded.headers.get("content-type") as string },
      rawBody: new Uint8Array(body),
    }),
  );
}

async function status(run: number) {
  const answer = await request(`${RUNS}/${run}`, { key: collector });
  expect(answer.status, answer.text).toBe(200);
  expect(contractMismatch(RunAnswer, answer.text)).toBeNull();
  return answer.body.run;
}

describe("a run's status before submit", () => {
  it("says what its replay would add, replace and retire, and the replay does just that", async () => {
    const opened = await request(RUNS, {
      method: "POST",
      key: collector,
      body: { apps: ["design"], viewports: ["mobile"], langs: ["ko"] },
    });
    expect(opened.status, opened.text).toBe(201);
    const run = opened.body.run.id;
    expect((await status(run)).preview).toEqual({
      screens: { add: 0, replace: 0, retire: 0 },
      variants: { add: 0, replace: 0, retire: 0 },
      flows: [],
      retired_variants: [],
    });

    // The run: one capture of /patterns in dark mode. It would add that variant to /patterns, nothing else.
    expect((await capture(run, "/patterns", {}, { mode: "dark" })).status).toBe(201);
    expect((await status(run)).preview).toEqual({
      screens: { add: 0, replace: 1, retire: 0 },
      variants: { add: 1, replace: 0, retire: 0 },
      flows: [],
      retired_variants: [],
    });

    // Walking the app again at mobile Korean (one page so far) would replace that walk; a 404 would retire a variant.
    expect((await capture(run, "/", {}, { mode: "light", walk: true })).status).toBe(201);
    expect((await capture(run, "/taxonomy", { outcome: "failed", http_status: "404" })).status).toBe(201);
    const taxonomy = (await status(run)).preview;
    expect(taxonomy.screens).toEqual({ add: 0, replace: 3, retire: 0 });
    expect(taxonomy.variants).toEqual({ add: 1, replace: 1, retire: 1 });
    expect(taxonomy.flows).toEqual([
      {
        app: "design",
        kind: "walk",
        slug: "signed-out-mobile-ko",
        change: "replace",
        steps_before: 17,
        steps_after: 1,
      },
    ]);
    expect(taxonomy.retired_variants).toEqual([
      {
        screen_id: expect.any(Number),
        app: "design",
        page: "/taxonomy",
        viewport: "mobile",
        lang: "ko",
        signed_in: false,
        mode: "light",
      },
    ]);

    const submitted = await request(`${RUNS}/${run}/submit`, { method: "POST", key: collector, body: {} });
    expect(submitted.status, submitted.text).toBe(200);
    expect(submitted.body.run).toMatchObject({
      status: "replayed",
      preview: null,
      replay: {
        added: { apps: 0, screens: 0, flows: 0 },
        changed: { apps: 1, screens: 3, flows: 1 },
        removed: { apps: 0, screens: 0, flows: 0 },
      },
    });
    expect((await status(run)).preview).toBeNull();
  });
});
