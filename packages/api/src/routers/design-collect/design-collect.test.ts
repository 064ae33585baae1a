import { createHash, randomBytes } from "node:crypto";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDesignToken, revokeDesignToken } from "../../auth/design-token-admin";
import type { Delivery } from "../../delivery";
import { contractMismatch, createApiClient, createTestDelivery, createTestDesignEdge } from "../../testing";
import { recordSecret } from "../../testing/secrets";
import { AssetAnswer, CaptureAnswer, COLLECT_LIMITS, RunAnswer } from "./schemas";
import { fixture, handMadePng } from "./test-images";

/** Collect runs over HTTP: real Requests through the design host's edge, design agent tokens, a real artifact store. */
let testDb: TestDatabase;
let delivery: Delivery;
let request: ReturnType<typeof createApiClient>;

const edgeOf = (collectLeaseSeconds?: number) => createTestDesignEdge(testDb.db, { delivery, collectLeaseSeconds });

beforeAll(async () => {
  testDb = await createTestDatabase();
  delivery = await createTestDelivery();
  request = createApiClient(testDb.db, { edge: edgeOf() });
});
afterAll(() => testDb.drop());

// One collection lock per database: each test starts with it free.
beforeEach(async () => {
  await testDb.db
    .update(schema.collectRuns)
    .set({ status: "failed", error: "test cleanup" })
    .where(eq(schema.collectRuns.status, "open"));
});

type Role = "collect" | "read" | "write" | "review";
let tokens = 0;

async function token(name = `collector-${++tokens}`, roles: Role[] = ["collect"]) {
  const created = await createDesignToken(testDb.db, { name, roles }, "shelf");
  recordSecret(created.token);
  return { id: created.record.id, token: created.token, name };
}

const RUNS = "/api/agent/collect/runs";
const SPEC = { apps: ["accounts", "design"], viewports: ["desktop", "mobile"], langs: ["ko", "en"] };

const open = (key: string, body: unknown = SPEC) => request(RUNS, { method: "POST", key, body });
const post = (key: string, path: string, body?: unknown) => request(path, { method: "POST", key, body });

async function openRun(key: string): Promise<number> {
  const answer = await open(key);
  expect(answer.status, answer.text).toBe(201);
  return answer.body.run.id;
}

type FormValue = string | { bytes: Uint8Array; name?: string; type?: string };

/** A multipart request as fetch builds it. */
async function form(key: string, path: string, fields: Record<string, FormValue | undefined>) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (typeof value === "string") data.append(name, value);
    else
      data.append(
        name,
        new Blob([new Uint8Array(value.bytes)], { type: value.type ?? "application/octet-stream" }),
        value.name,
      );
  }
  const encoded = new Response(data);
  return request(path, {
    method: "POST",
    key,
    headers: { "content-type": encoded.headers.get("content-type") as string },
    rawBody: new Uint8Array(await encoded.arrayBuffer()),
  });
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function uploadAsset(key: string, run: number, bytes: Uint8Array, fields: Record<string, string | undefined> = {}) {
  return form(key, `${RUNS}/${run}/assets`, {
    sha256: sha256(bytes),
    type: "css",
    url: "https://accounts.shelf.test/app.css",
    ...fields,
    file: { bytes, name: "app.css", type: "text/css" },
  });
}

let keys = 0;
/** A capture key: 40 characters, as a SHA-1 in hex is. */
const newKey = () => createHash("sha1").update(`capture-${++keys}-${Date.now()}`).digest("hex");

function uploadCapture(key: string, run: number, fields: Record<string, FormValue | undefined> = {}) {
  return form(key, `${RUNS}/${run}/captures`, {
    key: newKey(),
    url: "https://accounts.shelf.test/library",
    viewport: "desktop",
    lang: "en",
    auth: "true",
    outcome: "ok",
    image: { bytes: fixture("7x5.png"), name: "page.png", type: "image/png" },
    ...fields,
  });
}

/** Bytes the artifact store holds under a key. */
async function stored(objectKey: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await delivery.store.open(objectKey)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const openRuns = () => testDb.db.$count(schema.collectRuns, eq(schema.collectRuns.status, "open"));

describe("the collection lock", () => {
  it("gives exactly one of 20 parallel opens a run; the others are 409 naming it and when its lease ends", async () => {
    const agents = await Promise.all(Array.from({ length: 4 }, () => token()));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => open((agents[index % agents.length] as { token: string }).token)),
    );
    const won = answers.filter((answer) => answer.status === 201);
    expect(won).toHaveLength(1);
    const winner = won[0]?.body.run;
    expect(contractMismatch(RunAnswer, won[0]?.text as string)).toBeNull();
    expect(winner).toMatchObject({
      status: "open",
      apps: ["accounts", "design"],
      viewports: ["desktop", "mobile"],
      langs: ["ko", "en"],
      counts: { captures: 0, assets: 0 },
      error: null,
      replay: null,
    });
    const leaseSeconds = (Date.parse(winner.lease_expires_at) - Date.now()) / 1000;
    expect(leaseSeconds).toBeGreaterThan(590);
    expect(leaseSeconds).toBeLessThanOrEqual(600);
    for (const answer of answers.filter((candidate) => candidate.status !== 201)) {
      expect(answer.status, answer.text).toBe(409);
      expect(answer.body).toMatchObject({
        error: "collection_locked",
        message: expect.stringContaining(String(winner.id)),
        run: { id: winner.id, status: "open", opener: winner.opener, lease_expires_at: winner.lease_expires_at },
      });
    }
    expect(await openRuns()).toBe(1);
  });

  it("lets the next open displace a run whose lease has ended, ending it failed, even under 20 parallel opens", async () => {
    const crashed = await token();
    const stale = await openRun(crashed.token);
    await testDb.db
      .update(schema.collectRuns)
      .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(schema.collectRuns.id, stale));
    const next = await token();
    const answers = await Promise.all(Array.from({ length: 20 }, () => open(next.token)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(19);
    const old = await request(`${RUNS}/${stale}`, { key: crashed.token });
    expect(old.body.run).toMatchObject({ status: "failed", error: "lease expired", finished_at: expect.any(String) });
    expect(await openRuns()).toBe(1);
  });

  it("renews the lease with each upload, so a working collector is never displaced", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const expire = () =>
      testDb.db
        .update(schema.collectRuns)
        .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(schema.collectRuns.id, run));
    const rival = await token();

    await expire();
    expect((await uploadAsset(collector.token, run, randomBytes(64))).status).toBe(201);
    const afterAsset = (await request(`${RUNS}/${run}`, { key: collector.token })).body.run;
    expect(Date.parse(afterAsset.lease_expires_at) - Date.now()).toBeGreaterThan(590_000);
    expect((await open(rival.token)).status).toBe(409);

    await expire();
    expect((await uploadCapture(collector.token, run)).status).toBe(201);
    expect((await open(rival.token)).body.run.id).toBe(run);

    await expire();
    expect((await open(rival.token)).status).toBe(201);
    expect((await uploadAsset(collector.token, run, randomBytes(64))).body.error).toBe("run_not_open");
  });

  it("holds the lock for the deployment's lease length (SHELF_COLLECT_LEASE_SECONDS)", async () => {
    const shortLease = createApiClient(testDb.db, { edge: edgeOf(30) });
    const collector = await token();
    const opened = await shortLease(RUNS, { method: "POST", key: collector.token, body: SPEC });
    expect(opened.status).toBe(201);
    const seconds = (Date.parse(opened.body.run.lease_expires_at) - Date.now()) / 1000;
    expect(seconds).toBeGreaterThan(25);
    expect(seconds).toBeLessThanOrEqual(30);
  });

  it("is freed by fail and by submit, and takes nothing after either (409)", async () => {
    const collector = await token();
    const failed = await openRun(collector.token);
    const ended = await post(collector.token, `${RUNS}/${failed}/fail`, { error: "The browser crashed." });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.run).toMatchObject({ status: "failed", error: "The browser crashed." });

    const submitted = await openRun(collector.token);
    const asset = await uploadAsset(collector.token, submitted, randomBytes(100));
    const capture = await uploadCapture(collector.token, submitted, {
      assets: JSON.stringify([asset.body.asset.sha256]),
    });
    expect(capture.status, capture.text).toBe(201);
    const done = await post(collector.token, `${RUNS}/${submitted}/submit`, {
      accounts: [
        { found: true, reason: null },
        { found: false, reason: "No such account." },
      ],
      build_versions: ["web 1.4.0", "design 0.1.0"],
    });
    expect(done.status, done.text).toBe(200);
    expect(contractMismatch(RunAnswer, done.text)).toBeNull();
    expect(done.body.run).toMatchObject({
      status: "replayed",
      counts: { captures: 1, assets: 1 },
      accounts: [
        { found: true, reason: null },
        { found: false, reason: "No such account." },
      ],
      build_versions: ["web 1.4.0", "design 0.1.0"],
      // One capture that says no `meta.walk`: a screen, no walk.
      replay: { added: { apps: 1, screens: 1, flows: 0 }, removed: { apps: 0, screens: 0, flows: 0 } },
      submitted_at: expect.any(String),
    });
    // The replay made the run's capture a screen of the gallery, with the capture's image as its variant.
    const screens = await testDb.db
      .select({ id: schema.galleryScreens.id, status: schema.galleryScreens.status })
      .from(schema.galleryScreens)
      .where(eq(schema.galleryScreens.runId, submitted));
    expect(screens).toEqual([{ id: expect.any(Number), status: "current" }]);
    const [variant] = await testDb.db
      .select()
      .from(schema.galleryScreenVariants)
      .where(eq(schema.galleryScreenVariants.screenId, (screens[0] as { id: number }).id));
    const [recorded] = await testDb.db
      .select()
      .from(schema.collectCaptures)
      .where(eq(schema.collectCaptures.runId, submitted));
    expect(recorded?.key).toBe(capture.body.capture.key);
    expect(variant).toMatchObject({ captureId: recorded?.id });

    for (const run of [failed, submitted]) {
      for (const answer of [
        await uploadAsset(collector.token, run, randomBytes(10)),
        await uploadCapture(collector.token, run),
        await post(collector.token, `${RUNS}/${run}/fail`),
        await post(collector.token, `${RUNS}/${run}/submit`),
      ]) {
        expect({ status: answer.status, error: answer.body.error }, `run ${run}`).toEqual({
          status: 409,
          error: "run_not_open",
        });
      }
    }
    // Repeating an upload the run already holds is refused too once the run is closed.
    const repeat = await form(collector.token, `${RUNS}/${submitted}/assets`, {
      sha256: asset.body.asset.sha256,
      type: "css",
      url: asset.body.asset.url,
      file: { bytes: await stored(await assetKey(asset.body.asset.id)) },
    });
    expect(repeat.status).toBe(409);
    expect(await openRuns()).toBe(0);
    expect((await open(collector.token)).status).toBe(201);
  });

  it("refuses an open without viewports or languages, or naming unknown apps (422)", async () => {
    const collector = await token();
    for (const body of [
      { viewports: [], langs: ["ko"] },
      { viewports: ["desktop"], langs: [] },
      { viewports: ["desktop"] },
      { langs: ["en"] },
      { apps: ["nope"], viewports: ["desktop"], langs: ["en"] },
      { apps: "accounts", viewports: ["desktop"], langs: ["en"] },
      { viewports: ["tablet"], langs: ["en"] },
      { viewports: ["desktop"], langs: ["fr"] },
    ]) {
      const answer = await open(collector.token, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.errors).toBeDefined();
    }
    const all = await open(collector.token, { apps: null, viewports: ["mobile", "desktop", "mobile"], langs: ["en"] });
    expect(all.status).toBe(201);
    expect(all.body.run).toMatchObject({ apps: null, viewports: ["desktop", "mobile"], langs: ["en"] });
  });
});

async function assetKey(id: number): Promise<string> {
  const [row] = await testDb.db.select().from(schema.collectAssets).where(eq(schema.collectAssets.id, id));
  return row?.objectKey as string;
}

describe("who sees a run", () => {
  it("shows a run to its opener's token family (tokens of the same name) and 404 to every other token", async () => {
    const opener = await token("family-collector");
    const rotated = await token("family-collector");
    const stranger = await token("another-collector");
    const run = await openRun(opener.token);

    expect((await request(`${RUNS}/${run}`, { key: rotated.token })).body.run.id).toBe(run);
    expect((await uploadAsset(rotated.token, run, randomBytes(30))).status).toBe(201);

    for (const answer of [
      await request(`${RUNS}/${run}`, { key: stranger.token }),
      await uploadAsset(stranger.token, run, randomBytes(30)),
      await uploadCapture(stranger.token, run),
      await post(stranger.token, `${RUNS}/${run}/fail`),
      await post(stranger.token, `${RUNS}/${run}/submit`),
      await request(`${RUNS}/2000000000`, { key: opener.token }),
    ]) {
      expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 404, error: "not_found" });
    }
    const counts = (await request(`${RUNS}/${run}`, { key: opener.token })).body.run.counts;
    expect(counts).toEqual({ captures: 0, assets: 1 });
    expect((await post(rotated.token, `${RUNS}/${run}/fail`)).body.run.status).toBe("failed");
  });

  it("answers 401 to a revoked token and 403 to a token without the collect role, before reading anything", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const revoked = await token(collector.name);
    await revokeDesignToken(testDb.db, revoked.id);
    const reader = await token(collector.name, ["read", "write", "review"]);
    const attempts = (key: string) => [
      () => open(key),
      () => request(`${RUNS}/${run}`, { key }),
      () => uploadAsset(key, run, randomBytes(20)),
      () => uploadCapture(key, run),
      () => post(key, `${RUNS}/${run}/fail`),
      () => post(key, `${RUNS}/${run}/submit`),
    ];
    for (const attempt of attempts(revoked.token)) {
      const answer = await attempt();
      expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 401, error: "invalid_api_key" });
    }
    for (const attempt of attempts(reader.token)) {
      const answer = await attempt();
      expect({ status: answer.status, error: answer.body.error }).toEqual({
        status: 403,
        error: "missing_design_role",
      });
    }
    expect((await request(`${RUNS}/${run}`, { key: collector.token })).body.run).toMatchObject({
      status: "open",
      counts: { captures: 0, assets: 0 },
    });
  });
});

describe("assets", () => {
  it("stores the bytes, takes the file and url at their limits and refuses one more (413 file, 422 url)", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const largest = randomBytes(COLLECT_LIMITS.assetBytes);
    const taken = await uploadAsset(collector.token, run, largest, {
      url: `https://x.test/${"a".repeat(COLLECT_LIMITS.url - 15)}`,
      type: "js",
    });
    expect(taken.status, taken.text).toBe(201);
    expect(contractMismatch(AssetAnswer, taken.text)).toBeNull();
    expect(taken.body.asset).toMatchObject({ sha256: sha256(largest), type: "js", size: COLLECT_LIMITS.assetBytes });
    expect(taken.body.asset.url).toHaveLength(COLLECT_LIMITS.url);
    expect((await stored(await assetKey(taken.body.asset.id))).equals(largest)).toBe(true);

    const tooLarge = await uploadAsset(collector.token, run, randomBytes(COLLECT_LIMITS.assetBytes + 1));
    expect({ status: tooLarge.status, error: tooLarge.body.error }).toEqual({
      status: 413,
      error: "payload_too_large",
    });
    const longUrl = await uploadAsset(collector.token, run, randomBytes(10), {
      url: `https://x.test/${"a".repeat(COLLECT_LIMITS.url - 14)}`,
    });
    expect(longUrl.status).toBe(422);
    expect(Object.keys(longUrl.body.errors)).toEqual(["url"]);
  });

  it("refuses a sha256 that does not match the bytes, and fields that are missing or wrong (422)", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const bytes = Buffer.from("body { color: red }");
    const mismatch = await uploadAsset(collector.token, run, bytes, { sha256: sha256(Buffer.from("other")) });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body).toMatchObject({ message: expect.any(String), errors: { sha256: [expect.any(String)] } });
    expect(mismatch.body.errors.sha256[0]).toContain(sha256(bytes));
    for (const [fields, field] of [
      [{ sha256: "abc" }, "sha256"],
      [{ type: "img" }, "type"],
      [{ url: "" }, "url"],
      [{ url: undefined }, "url"],
    ] as const) {
      const answer = await uploadAsset(collector.token, run, bytes, fields);
      expect(answer.status, JSON.stringify(fields)).toBe(422);
      expect(Object.keys(answer.body.errors), JSON.stringify(fields)).toEqual([field]);
    }
    const noFile = await form(collector.token, `${RUNS}/${run}/assets`, {
      sha256: sha256(bytes),
      type: "css",
      url: "https://x.test/a.css",
    });
    expect(noFile.status).toBe(422);
    expect(Object.keys(noFile.body.errors)).toEqual(["file"]);
    const json = await post(collector.token, `${RUNS}/${run}/assets`, {
      sha256: sha256(bytes),
      type: "css",
      url: "https://x.test/a.css",
      file: bytes.toString("base64"),
    });
    expect(json.status).toBe(422);
    expect((await request(`${RUNS}/${run}`, { key: collector.token })).body.run.counts.assets).toBe(0);
  });

  it("is one record per bytes in a run: 201 the first time, 200 after, even sent in parallel", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const bytes = randomBytes(500);
    const first = await uploadAsset(collector.token, run, bytes);
    expect(first.status).toBe(201);
    const again = await uploadAsset(collector.token, run, bytes, { url: "https://elsewhere.test/copy.css" });
    expect(again.status).toBe(200);
    expect(again.body.asset).toEqual(first.body.asset);

    const parallel = randomBytes(700);
    const answers = await Promise.all(Array.from({ length: 8 }, () => uploadAsset(collector.token, run, parallel)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.asset.id)).size).toBe(1);
    expect(await testDb.db.$count(schema.collectAssets, eq(schema.collectAssets.runId, run))).toBe(2);
    // Another run's asset of the same bytes is its own record.
    await post(collector.token, `${RUNS}/${run}/fail`);
    const next = await openRun(collector.token);
    const elsewhere = await uploadAsset(collector.token, next, bytes);
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.asset.id).not.toBe(first.body.asset.id);
  });
});

/** An image of exactly `size` bytes: a real PNG header, padded after its end. */
const paddedPng = (size: number) => {
  const png = handMadePng(4, 3);
  return Buffer.concat([png, Buffer.alloc(size - png.length)]);
};

describe("captures", () => {
  it("records the pixel size and type of PNG, JPEG and WebP images, and stores image and HTML", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    for (const [name, type, width, height] of [
      ["7x5.png", "png", 7, 5],
      ["12x9.jpg", "jpeg", 12, 9],
      ["13x4-progressive.jpg", "jpeg", 13, 4],
      ["11x6-lossy.webp", "webp", 11, 6],
      ["9x3-lossless.webp", "webp", 9, 3],
      ["10x8-alpha.webp", "webp", 10, 8],
    ] as const) {
      const image = fixture(name);
      // Sent as octet-stream: the bytes tell the type, never the part's declared type.
      const answer = await uploadCapture(collector.token, run, {
        image: { bytes: image, name: "x.bin" },
        html: { bytes: Buffer.from(`<html><body>${name}</body></html>`), type: "text/html" },
      });
      expect(answer.status, answer.text).toBe(201);
      expect(contractMismatch(CaptureAnswer, answer.text)).toBeNull();
      expect(answer.body.capture.image).toEqual({ type, width, height, size: image.length, sha256: sha256(image) });
      const [row] = await testDb.db
        .select()
        .from(schema.collectCaptures)
        .where(eq(schema.collectCaptures.id, answer.body.capture.id));
      expect((await stored(row?.imageKey as string)).equals(image)).toBe(true);
      expect((await stored(row?.htmlKey as string)).toString()).toContain(name);
    }
  });

  it("refuses an image that is not a PNG, JPEG or WebP by its bytes (422)", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const gif = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
    for (const bytes of [gif, Buffer.from("just text, called image.png"), Buffer.alloc(0)]) {
      const answer = await uploadCapture(collector.token, run, {
        image: { bytes, name: "page.png", type: "image/png" },
      });
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toEqual(["image"]);
    }
    const noImage = await uploadCapture(collector.token, run, { image: undefined });
    expect(Object.keys(noImage.body.errors)).toEqual(["image"]);
    expect((await request(`${RUNS}/${run}`, { key: collector.token })).body.run.counts.captures).toBe(0);
  });

  it("takes every limited field at its limit and refuses one more (413 for files, 422 naming the field)", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    // On an app the run declared: a capture outside its scope is refused before its lengths matter.
    const at = (length: number) => `https://accounts.shelf.test/${"p".repeat(length - 28)}`;
    const full = await uploadCapture(collector.token, run, {
      key: "k".repeat(COLLECT_LIMITS.key),
      url: at(COLLECT_LIMITS.url),
      final_url: at(COLLECT_LIMITS.url),
      message: "m".repeat(COLLECT_LIMITS.message),
      image: { bytes: paddedPng(COLLECT_LIMITS.imageBytes) },
      html: { bytes: Buffer.alloc(COLLECT_LIMITS.htmlBytes, "h") },
      login_stage: "false",
      saved_state: "true",
      http_status: "200",
      outcome: "redirected",
      viewport: "mobile",
      lang: "ko",
      auth: "false",
    });
    expect(full.status, full.text).toBe(201);
    expect(full.body.capture).toMatchObject({
      key: "k".repeat(40),
      image: { type: "png", width: 4, height: 3, size: COLLECT_LIMITS.imageBytes },
      html: { size: COLLECT_LIMITS.htmlBytes },
      login_stage: false,
      saved_state: true,
      http_status: 200,
      outcome: "redirected",
      viewport: "mobile",
      lang: "ko",
      auth: false,
      meta: null,
      assets: [],
    });
    expect(full.body.capture.message).toHaveLength(COLLECT_LIMITS.message);

    for (const file of [
      { image: { bytes: paddedPng(COLLECT_LIMITS.imageBytes + 1) } },
      { html: { bytes: Buffer.alloc(COLLECT_LIMITS.htmlBytes + 1, "h") } },
    ]) {
      const answer = await uploadCapture(collector.token, run, file);
      expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 413, error: "payload_too_large" });
    }
    for (const [fields, field] of [
      [{ key: "k".repeat(COLLECT_LIMITS.key - 1) }, "key"],
      [{ key: "k".repeat(COLLECT_LIMITS.key + 1) }, "key"],
      [{ key: `${"k".repeat(39)}\t` }, "key"],
      [{ url: at(COLLECT_LIMITS.url + 1) }, "url"],
      [{ final_url: at(COLLECT_LIMITS.url + 1) }, "final_url"],
      [{ message: "m".repeat(COLLECT_LIMITS.message + 1) }, "message"],
      [{ viewport: "tablet" }, "viewport"],
      [{ lang: "fr" }, "lang"],
      [{ outcome: "maybe" }, "outcome"],
      [{ auth: "yes" }, "auth"],
      [{ auth: "1" }, "auth"],
      [{ auth: undefined }, "auth"],
      [{ login_stage: "TRUE" }, "login_stage"],
      [{ saved_state: "" }, "saved_state"],
      [{ http_status: "2xx" }, "http_status"],
      [{ http_status: "200.5" }, "http_status"],
      [{ url: undefined }, "url"],
    ] as const) {
      const answer = await uploadCapture(collector.token, run, fields);
      expect(answer.status, JSON.stringify(fields)).toBe(422);
      expect(Object.keys(answer.body.errors), JSON.stringify(fields)).toEqual([field]);
    }
    expect((await request(`${RUNS}/${run}`, { key: collector.token })).body.run.counts.captures).toBe(1);
  });

  it("refuses a capture outside the run's declared apps, viewports or languages (422 naming the scope)", async () => {
    const collector = await token();
    const opened = await open(collector.token, { apps: ["design"], viewports: ["mobile"], langs: ["ko"] });
    expect(opened.status, opened.text).toBe(201);
    const run = opened.body.run.id;
    const design = { url: "https://design.shelf.test/patterns", viewport: "mobile", lang: "ko", auth: "false" };
    const scope = "The capture is outside its run's declared scope: apps design; viewports mobile; languages ko.";
    for (const [fields, errors] of [
      [
        { viewport: "desktop" },
        { viewport: ["desktop is outside the run's declared viewports (mobile); open a run that declares it"] },
      ],
      [{ lang: "en" }, { lang: ["en is outside the run's declared languages (ko); open a run that declares it"] }],
      [
        { url: "https://accounts.shelf.test/library" },
        { url: ["the app accounts is outside the run's declared apps (design); open a run that declares it"] },
      ],
      [
        { meta: JSON.stringify({ app: "accounts" }) },
        { "meta.app": ["the app accounts is outside the run's declared apps (design); open a run that declares it"] },
      ],
      [
        { url: "http://localhost:3001/patterns" },
        { url: ["the app localhost:3001 is outside the run's declared apps (design); open a run that declares it"] },
      ],
    ] as const) {
      const refused = await uploadCapture(collector.token, run, { ...design, ...fields });
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body).toEqual({ message: scope, errors });
    }
    expect((await request(`${RUNS}/${run}`, { key: collector.token })).body.run.counts.captures).toBe(0);
    // Within the scope, by URL or by meta.app.
    expect((await uploadCapture(collector.token, run, design)).status).toBe(201);
    const meta = JSON.stringify({ app: "design", page: "/patterns" });
    const local = { ...design, url: "http://localhost:3001/patterns", meta };
    expect((await uploadCapture(collector.token, run, local)).status).toBe(201);
  });

  it("reads meta as JSON text of CaptureMeta, keeping unknown fields, and names what is wrong in it (422)", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const meta = {
      app: "accounts",
      page: "/library",
      title: "Library",
      page_type: "list",
      flow: "browse",
      flow_step: 2,
      patterns: ["data-table"],
      elements: ["button"],
      mode: "light",
      collector_version: "0.3.1",
      scroll: { height: 2400 },
    };
    const kept = await uploadCapture(collector.token, run, { meta: JSON.stringify(meta) });
    expect(kept.status, kept.text).toBe(201);
    expect(kept.body.capture.meta).toEqual(meta);
    const [row] = await testDb.db
      .select()
      .from(schema.collectCaptures)
      .where(eq(schema.collectCaptures.id, kept.body.capture.id));
    expect(row?.meta).toEqual(meta);
    expect((await uploadCapture(collector.token, run, { meta: "{}" })).body.capture.meta).toEqual({});

    for (const [text, field] of [
      ["{not json", "meta"],
      ["[]", "meta"],
      ['"a page"', "meta"],
      ["null", "meta"],
      [`${"[".repeat(100)}${"]".repeat(100)}`, "meta"],
      ['{"flow_step": "two"}', "meta.flow_step"],
      ['{"walk": "yes"}', "meta.walk"],
      ['{"app": "mail"}', "meta.app"],
      ['{"patterns": "data-table"}', "meta.patterns"],
    ] as const) {
      const answer = await uploadCapture(collector.token, run, { meta: text });
      expect(answer.status, text).toBe(422);
      expect(Object.keys(answer.body.errors), text).toEqual([field]);
    }
  });

  it("takes assets naming this run's assets only (an unknown one is 422)", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const css = await uploadAsset(collector.token, run, Buffer.from("a { color: blue }"));
    const js = await uploadAsset(collector.token, run, Buffer.from("console.log(1)"), { type: "js" });
    const named = [css.body.asset.sha256, js.body.asset.sha256.toUpperCase(), css.body.asset.sha256];
    const taken = await uploadCapture(collector.token, run, { assets: JSON.stringify(named) });
    expect(taken.status, taken.text).toBe(201);
    expect(taken.body.capture.assets).toEqual([css.body.asset.sha256, js.body.asset.sha256]);

    const unknown = sha256(Buffer.from("never uploaded"));
    const refused = await uploadCapture(collector.token, run, {
      assets: JSON.stringify([css.body.asset.sha256, unknown]),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.assets[0]).toContain(unknown);
    for (const text of ["not json", '{"a": 1}', '["abc"]', "[1]"]) {
      const answer = await uploadCapture(collector.token, run, { assets: text });
      expect(answer.status, text).toBe(422);
      expect(Object.keys(answer.body.errors)[0], text).toMatch(/^assets/);
    }

    // Another run's asset is unknown here.
    await post(collector.token, `${RUNS}/${run}/fail`);
    const next = await openRun(collector.token);
    const elsewhere = await uploadCapture(collector.token, next, { assets: JSON.stringify([css.body.asset.sha256]) });
    expect(elsewhere.status).toBe(422);
  });

  it("answers the same key with the same image 200 with the capture unchanged, and another image 409", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    const key = newKey();
    const first = await uploadCapture(collector.token, run, { key, url: "https://accounts.shelf.test/first" });
    expect(first.status).toBe(201);
    const again = await uploadCapture(collector.token, run, {
      key,
      url: "https://accounts.shelf.test/second",
      lang: "ko",
    });
    expect(again.status).toBe(200);
    expect(again.body.capture).toEqual(first.body.capture);

    const other = await uploadCapture(collector.token, run, {
      key,
      image: { bytes: fixture("12x9.jpg") },
    });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: "capture_key_taken", message: expect.stringContaining(key) });

    const parallelKey = newKey();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        uploadCapture(collector.token, run, {
          key: parallelKey,
          image: { bytes: index % 2 === 0 ? fixture("7x5.png") : fixture("12x9.jpg") },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 409)).toHaveLength(3);
    expect((await request(`${RUNS}/${run}`, { key: collector.token })).body.run.counts.captures).toBe(2);
  });
});

describe("fail and submit bodies", () => {
  it("refuses a submit whose reasons or build versions are too long, and takes them at their limits", async () => {
    const collector = await token();
    const run = await openRun(collector.token);
    for (const [body, field] of [
      [{ accounts: [{ found: true, reason: "r".repeat(COLLECT_LIMITS.reason + 1) }] }, "accounts.0.reason"],
      [{ accounts: [{ reason: "no found" }] }, "accounts.0.found"],
      [{ build_versions: ["v".repeat(COLLECT_LIMITS.buildVersion + 1)] }, "build_versions.0"],
      [{ build_versions: "1.0" }, "build_versions"],
    ] as const) {
      const answer = await post(collector.token, `${RUNS}/${run}/submit`, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.body.errors)).toEqual([field]);
    }
    const failLong = await post(collector.token, `${RUNS}/${run}/fail`, { error: "e".repeat(2001) });
    expect(failLong.status).toBe(422);
    const done = await post(collector.token, `${RUNS}/${run}/submit`, {
      accounts: [{ found: false, reason: "r".repeat(COLLECT_LIMITS.reason) }],
      build_versions: ["v".repeat(COLLECT_LIMITS.buildVersion)],
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.run.status).toBe("replayed");
  });

  it("takes a fail or a submit without a body", async () => {
    const collector = await token();
    const failed = await openRun(collector.token);
    const ended = await request(`${RUNS}/${failed}/fail`, { method: "POST", key: collector.token });
    expect(ended.body.run).toMatchObject({ status: "failed", error: "ended by the collector" });
    const submitted = await openRun(collector.token);
    const done = await request(`${RUNS}/${submitted}/submit`, { method: "POST", key: collector.token });
    expect(done.body.run).toMatchObject({ status: "replayed", accounts: null, build_versions: null });
  });
});
