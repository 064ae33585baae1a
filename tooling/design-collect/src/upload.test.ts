import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { designCollect, designCollectAdmin, GALLERY_LOCK } from "@shelf/api";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { desc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DesignHost, freeCollectionLock, startDesignHost } from "../test/design-host";
import type { ProxiedRequest } from "../test/http-proxy";
import { run } from "./cli";
import { folderSink, loadRunFolder, MANIFEST, uploadRunFolder } from "./folder";
import { captureKey } from "./keys";
import { type CollectedCapture, sha256 } from "./run";
import { CollectHttpError, CollectionLocked, uploadSink } from "./upload";

/**
 * The upload client and the loader against the real design host (test/design-host.ts): the design API edge behind
 * the real server, a test database and a real artifact store. Its refusals come from real causes: another run
 * holding the lock, a rate limit, the host's database going away, an operator failing the run, answers lost on the
 * way back, and fields and files the host refuses.
 */

/** A real PNG of the given size (one grey row repeated), made with zlib. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crcBytes = Buffer.concat([Buffer.from(type, "latin1"), data]);
    let crc = 0xffffffff;
    for (const byte of crcBytes) {
      crc ^= byte;
      for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
    }
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE((crc ^ 0xffffffff) >>> 0);
    return Buffer.concat([length, crcBytes, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width, 0x80)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const css = Buffer.from("body { color: #123; font-family: system-ui; }");
const js = Buffer.from("console.log('hi');");

function capture(page: string, auth: boolean, overrides: Partial<CollectedCapture> = {}): CollectedCapture {
  const image = png(40, 25);
  return {
    key: captureKey({ app: "accounts", page, viewport: "desktop", lang: "en", auth }),
    url: `http://127.0.0.1:3000${page}`,
    viewport: "desktop",
    lang: "en",
    auth,
    outcome: "ok",
    message: null,
    login_stage: auth ? false : null,
    saved_state: auth ? false : null,
    final_url: `http://127.0.0.1:3000${page}`,
    http_status: 200,
    meta: {
      app: "accounts",
      page,
      title: "Shelf",
      page_type: "home",
      patterns: ["form"],
      elements: ["button"],
      walk: true,
    },
    image: { type: "png", width: 40, height: 25, bytes: image },
    html: Buffer.from(`<!DOCTYPE html><html><head></head><body><h1>${page}</h1></body></html>`),
    assets: [sha256(css), sha256(js)],
    ...overrides,
  };
}

let testDb: TestDatabase;
let host: DesignHost;
let dir: string;

const HOME = captureKey({ app: "accounts", page: "/", viewport: "desktop", lang: "en", auth: false });
const ACCOUNT = captureKey({ app: "accounts", page: "/account", viewport: "desktop", lang: "en", auth: true });

beforeAll(async () => {
  testDb = await createTestDatabase();
  host = await startDesignHost(testDb);
});
afterAll(async () => {
  await host?.close();
  await testDb?.drop();
});

beforeEach(async () => {
  await freeCollectionLock(testDb);
  host.proxy.requests.length = 0;
  host.proxy.setHook(null);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-collect-upload-"));
  const sink = await folderSink(dir, { target: "http://127.0.0.1:3000", design_url: null, signed_in: true });
  await sink.open({ apps: ["accounts"], viewports: ["desktop"], langs: ["en"] });
  await sink.asset({ sha256: sha256(css), type: "css", url: "http://127.0.0.1:3000/a.css", bytes: css });
  await sink.asset({ sha256: sha256(js), type: "js", url: "http://127.0.0.1:3000/a.js", bytes: js });
  await sink.asset({ sha256: sha256(js), type: "js", url: "http://127.0.0.1:3000/again.js", bytes: js });
  await sink.capture(capture("/", false));
  await sink.capture(
    capture("/account", true, {
      outcome: "redirected",
      message: "went elsewhere",
      login_stage: true,
      http_status: null,
      html: null,
    }),
  );
  await sink.submit({ accounts: [{ found: true, reason: null }], build_versions: ["2026.11.1"] });
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** The newest run the host's token opened, as the database holds it. */
async function newestRun() {
  const [row] = await testDb.db
    .select()
    .from(schema.collectRuns)
    .where(eq(schema.collectRuns.openerName, host.agent))
    .orderBy(desc(schema.collectRuns.id))
    .limit(1);
  if (!row) throw new Error("the host has no run of this token");
  return row;
}

const capturesOf = (runId: number) =>
  testDb.db.select().from(schema.collectCaptures).where(eq(schema.collectCaptures.runId, runId));
const assetsOf = (runId: number) =>
  testDb.db.select().from(schema.collectAssets).where(eq(schema.collectAssets.runId, runId));

async function stored(objectKey: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await host.delivery.store.open(objectKey)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Another agent's run, opened through the service: it really holds the collection lock. */
const holdLock = () =>
  designCollect.openRun(
    testDb.db,
    { tokenId: null, name: "nightly" },
    { apps: null, viewports: ["desktop"], langs: ["en"] },
  );

const noWait = async () => {};

/** Uploads the saved run to a design host, keeping what the upload logs (its lines joined, for matching). */
async function uploadLogged(to: { url: string; token: string }, sleep?: (ms: number) => Promise<void>) {
  const lines: string[] = [];
  const submitted = await uploadRunFolder(dir, {
    designUrl: to.url,
    token: to.token,
    log: (line) => lines.push(line),
    sleep,
  });
  return { submitted, log: lines.join("\n") };
}

describe("a saved run uploaded with the loader to the real design host", () => {
  it("opens a run, sends each asset once, then each capture with every field, then submits; the host replays it", async () => {
    const submitted = await uploadRunFolder(dir, { designUrl: host.url, token: host.token });
    const row = await newestRun();
    expect(submitted).toMatchObject({ id: row.id, status: "replayed", counts: { captures: 2, assets: 2 } });
    // The signed-in capture was redirected: it makes no screen; the signed-out home page does, in a walk of its own.
    expect(submitted.replay).toEqual({
      added: { apps: 1, screens: 1, flows: 1 },
      changed: { apps: 0, screens: 0, flows: 0 },
      removed: { apps: 0, screens: 0, flows: 0 },
    });
    expect(host.answers()).toEqual([
      "/runs 201",
      `/runs/${row.id}/assets 201`,
      `/runs/${row.id}/assets 201`,
      `/runs/${row.id}/captures 201`,
      `/runs/${row.id}/captures 201`,
      `/runs/${row.id}/submit 200`,
    ]);
    expect(row).toMatchObject({
      apps: ["accounts"],
      viewports: ["desktop"],
      langs: ["en"],
      accounts: [{ found: true, reason: null }],
      buildVersions: ["2026.11.1"],
    });

    const assets = await assetsOf(row.id);
    expect(
      assets.map(({ sha256, type, url, size }) => ({ sha256, type, url, size })).sort((a, b) => a.size - b.size),
    ).toEqual([
      { sha256: sha256(js), type: "js", url: "http://127.0.0.1:3000/a.js", size: js.length },
      { sha256: sha256(css), type: "css", url: "http://127.0.0.1:3000/a.css", size: css.length },
    ]);
    for (const asset of assets) expect(sha256(await stored(asset.objectKey))).toBe(asset.sha256);

    const captures = await capturesOf(row.id);
    const home = captures.find((c) => c.key === HOME);
    expect(home).toMatchObject({
      url: "http://127.0.0.1:3000/",
      viewport: "desktop",
      lang: "en",
      auth: false,
      outcome: "ok",
      httpStatus: 200,
      finalUrl: "http://127.0.0.1:3000/",
      // Null fields are left out of the form, and the host records null.
      message: null,
      loginStage: null,
      savedState: null,
      meta: { app: "accounts", page: "/", title: "Shelf", page_type: "home", patterns: ["form"], elements: ["button"] },
      assets: [sha256(css), sha256(js)],
      imageType: "png",
      imageWidth: 40,
      imageHeight: 25,
    });
    expect(await stored(home?.imageKey as string)).toEqual(png(40, 25));
    expect((await stored(home?.htmlKey as string)).toString()).toBe(
      "<!DOCTYPE html><html><head></head><body><h1>/</h1></body></html>",
    );
    const account = captures.find((c) => c.key === ACCOUNT);
    expect(account).toMatchObject({
      auth: true,
      outcome: "redirected",
      message: "went elsewhere",
      loginStage: true,
      savedState: false,
      httpStatus: null,
      htmlKey: null,
    });
    // What the replay made of it: the home page is a current screen with its one variant.
    const screens = await testDb.db.select().from(schema.galleryScreens).where(eq(schema.galleryScreens.runId, row.id));
    expect(screens.map((screen) => [screen.page, screen.status, screen.pageType])).toEqual([["/", "current", "home"]]);
  });

  it("waits as a real 429 tells (Retry-After) and tries again", async () => {
    // Three requests a token may make in two seconds: the fourth of the upload is refused until the window ends.
    const limited = await startDesignHost(testDb, { rateLimit: { points: 3, windowSeconds: 2 } });
    try {
      const { submitted, log } = await uploadLogged(limited);
      expect(submitted.status).toBe("replayed");
      const refused = limited.proxy.requests.filter((request) => request.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      const first = limited.proxy.requests.indexOf(refused[0] as ProxiedRequest);
      expect(first).toBeGreaterThanOrEqual(3);
      // The same upload again, once the window ended, was taken.
      const retried = limited.proxy.requests.slice(first + 1).find((request) => request.status !== 429);
      expect(retried).toMatchObject({ path: refused[0]?.path, status: 201 });
      expect(refused[0]?.retryAfter).toMatch(/^[12]$/);
      expect(log).toContain(`HTTP 429, trying again in ${refused[0]?.retryAfter} s`);
    } finally {
      await limited.close();
    }
  });

  it("waits out the host's database outage (503 with Retry-After) and tries again", async () => {
    let captures = 0;
    host.proxy.setHook(async ({ path }) => {
      // The database goes away just before the first capture arrives.
      if (path.endsWith("/captures") && ++captures === 1) await host.database.cut();
    });
    const waits: number[] = [];
    const { submitted, log } = await uploadLogged(host, async (ms) => {
      waits.push(ms);
      await host.database.restore();
    });
    expect(submitted).toMatchObject({ status: "replayed", counts: { captures: 2 } });
    const captureAnswers = host.proxy.requests.filter((request) => request.path.endsWith("/captures"));
    expect(captureAnswers.map((request) => [request.status, request.retryAfter])).toEqual([
      [503, "2"],
      [201, null],
      [201, null],
    ]);
    expect(waits).toEqual([2000]);
    expect(log).toMatch(/upload capture \w{40} .*: HTTP 503, trying again in 2 s/);
  });

  it("sends an upload again when its answer was lost, and takes the host's 200 for the repeat", async () => {
    const lose = ["/assets", "/captures"];
    host.proxy.setHook(({ path }) => {
      // The first asset and the first capture reach the host; their answers never come back.
      const first = lose.find((suffix) => path.endsWith(suffix));
      if (!first) return "pass";
      lose.splice(lose.indexOf(first), 1);
      return "lose-answer";
    });
    const { submitted, log } = await uploadLogged(host, noWait);
    const id = submitted.id;
    expect(submitted).toMatchObject({ status: "replayed", counts: { captures: 2, assets: 2 } });
    expect(host.answers()).toEqual([
      "/runs 201",
      `/runs/${id}/assets 201 lost`,
      `/runs/${id}/assets 200`,
      `/runs/${id}/assets 201`,
      `/runs/${id}/captures 201 lost`,
      `/runs/${id}/captures 200`,
      `/runs/${id}/captures 201`,
      `/runs/${id}/submit 200`,
    ]);
    expect(await assetsOf(id)).toHaveLength(2);
    expect(await capturesOf(id)).toHaveLength(2);
    expect(log).toMatch(
      /upload asset http:\/\/127\.0\.0\.1:3000\/a\.css: fetch failed \(other side closed\); trying again/,
    );
  });

  it("reads the run back when the submit's answer is lost, and takes the replay the host did all the same", async () => {
    host.proxy.setHook(({ path }) => (path.endsWith("/submit") ? "lose-answer" : "pass"));
    const { submitted, log } = await uploadLogged(host);
    const { id } = await newestRun();
    expect(submitted).toMatchObject({ id, status: "replayed", counts: { captures: 2, assets: 2 } });
    expect(submitted.replay).toEqual((await newestRun()).replay);
    // Submitting is not repeated (a second submit is 409): the run is read instead.
    expect(host.answers().slice(-2)).toEqual([`/runs/${id}/submit 200 lost`, `/runs/${id} 200`]);
    expect(log).toContain(`the submit's answer was lost; run ${id} was submitted all the same: replayed`);
  });

  it("follows a replay that outlasts the submit (answered replaying) until it ends, and takes its outcome", async () => {
    // Another replay holds the gallery's lock (as another design instance's would): this run's replay waits for it
    // longer than the submit waits, so the submit answers the run `replaying`. The lock is let go at the first wait.
    const holder = await testDb.sql.reserve();
    await holder`select pg_advisory_lock(${GALLERY_LOCK})`;
    let held = true;
    const release = async () => {
      if (!held) return;
      held = false;
      await holder`select pg_advisory_unlock(${GALLERY_LOCK})`;
    };
    try {
      const { submitted, log } = await uploadLogged(host, async (ms) => {
        await release();
        await new Promise((resolve) => setTimeout(resolve, ms));
      });
      const { id } = await newestRun();
      expect(log).toContain(`submitted run ${id}; its replay goes on, waiting for it`);
      expect(submitted).toMatchObject({ id, status: "replayed", counts: { captures: 2 } });
      expect(submitted.replay).toEqual((await newestRun()).replay);
      const answers = host.answers();
      const reads = answers.slice(answers.indexOf(`/runs/${id}/submit 200`) + 1);
      expect(reads.length).toBeGreaterThanOrEqual(1);
      expect(new Set(reads)).toEqual(new Set([`/runs/${id} 200`]));
    } finally {
      await release();
      holder.release();
    }
  });

  it("fails the run with the error when the host refuses a capture midway (422 naming the field)", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), "utf8"));
    manifest.captures[1].meta.title = 5;
    await fs.writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest));
    await expect(uploadRunFolder(dir, { designUrl: host.url, token: host.token })).rejects.toThrow(
      /upload capture \w{40} \(http:\/\/127\.0\.0\.1:3000\/account desktop en\): HTTP 422 .*\{"meta\.title":\[/,
    );
    const row = await newestRun();
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/HTTP 422/);
    expect(host.answers().slice(-3)).toEqual([
      `/runs/${row.id}/captures 201`,
      `/runs/${row.id}/captures 422`,
      `/runs/${row.id}/fail 200`,
    ]);
    expect(await capturesOf(row.id)).toHaveLength(1);
  });

  it("stops when an operator fails the run between uploads (409 run_not_open), leaving the operator's reason", async () => {
    host.proxy.setHook(async ({ path }) => {
      if (path.endsWith("/captures")) {
        const open = await newestRun();
        if (open.status === "open")
          await designCollectAdmin.failRunAsOperator(testDb.db, open.id, "stuck: ended by ops");
      }
    });
    const error = await uploadRunFolder(dir, { designUrl: host.url, token: host.token }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CollectHttpError);
    expect((error as CollectHttpError).status).toBe(409);
    expect((error as Error).message).toMatch(/HTTP 409 Collect run \d+ is failed: .* \(run_not_open\)/);
    const row = await newestRun();
    expect(row).toMatchObject({ status: "failed", error: "stuck: ended by ops" });
    // Failing a run that is no longer open is refused too; the loader gives up there.
    expect(host.answers().slice(-2)).toEqual([`/runs/${row.id}/captures 409`, `/runs/${row.id}/fail 409`]);
  });

  it("names the holder of the lock and its lease end on 409, and sends nothing else", async () => {
    const held = await holdLock();
    const error = await uploadRunFolder(dir, { designUrl: host.url, token: host.token }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CollectionLocked);
    expect((error as CollectionLocked).holder).toEqual({
      id: held.id,
      opener: "nightly",
      leaseExpiresAt: held.lease_expires_at,
    });
    expect(host.answers()).toEqual(["/runs 409"]);
  });

  it("opens again on a 409 at open that is not the lock (conflict), not taking it for the lock", async () => {
    // Rows restored with their ids but not the id sequence: each insert of an open meets an id already taken, and
    // after five such tries the host answers 409 `conflict` ("open again"). Ten such rows take two opens.
    const [sequence] = await testDb.sql<{ next: string }[]>`
      select nextval(pg_get_serial_sequence('collect_runs', 'id')) as next`;
    const next = Number(sequence?.next);
    await testDb.sql`
      insert into collect_runs (id, status, viewports, langs, opener_name, lease_expires_at)
      overriding system value
      select id, 'failed', '{desktop}', '{en}', 'restored', now()
      from generate_series(${next + 1}::int, ${next + 10}::int) as id`;
    const submitted = await uploadRunFolder(dir, { designUrl: host.url, token: host.token, sleep: noWait });
    expect(host.answers().slice(0, 3)).toEqual(["/runs 409", "/runs 409", "/runs 201"]);
    expect(submitted).toMatchObject({ id: next + 11, status: "replayed" });
  });

  it("exits non-zero from the command line: 3 for the lock (holder and lease printed), 2 for a refused token", async () => {
    const held = await holdLock();
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => err.push(text) };
    expect(await run(["--from", dir, "--design-url", host.url, "--token", host.token], io)).toBe(3);
    expect(err.join("")).toContain(`run ${held.id} of nightly, its lease ends ${held.lease_expires_at}`);
    await freeCollectionLock(testDb);
    err.length = 0;
    expect(await run(["--from", dir, "--design-url", host.url, "--token", "shelf_design_wrong"], io)).toBe(2);
    expect(err.join("")).toMatch(/open a run: HTTP 401 .+ \(invalid_api_key\)/);
  });

  it("fails the run when interrupted, so the lock is not held until the lease ends", async () => {
    const interrupt = new AbortController();
    interrupt.abort(new Error("interrupted"));
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => err.push(text) };
    expect(await run(["--from", dir, "--design-url", host.url, "--token", host.token], io, interrupt.signal)).toBe(130);
    expect(await newestRun()).toMatchObject({ status: "failed", error: "interrupted" });
    expect(err.join("")).toContain("interrupted: the run was failed");
  });

  it("uploads from the command line and prints the replayed run", async () => {
    const out: string[] = [];
    const code = await run(["--from", dir, "--design-url", host.url, "--token", host.token], {
      stdout: (text) => out.push(text),
      stderr: () => {},
    });
    expect(code).toBe(0);
    const { id } = await newestRun();
    // What the host says of the run, over HTTP: the replay's summary the command printed.
    const answered = await host.run(id);
    expect(answered).toMatchObject({ status: "replayed", counts: { captures: 2, assets: 2 } });
    expect(out.join("")).toBe(`submitted run ${id}: replayed ${JSON.stringify(answered.replay)}\n`);
  });

  it("exits 2 when the host's replay fails, with the host's reason, and the gallery is unchanged", async () => {
    host.proxy.setHook(async ({ path }) => {
      if (!path.endsWith("/submit")) return;
      // The artifact store lost the stylesheet's bytes between its upload and the replay.
      const [asset] = await assetsOf((await newestRun()).id).then((rows) => rows.filter((row) => row.type === "css"));
      await host.delivery.store.remove(asset?.objectKey as string);
    });
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => err.push(text) };
    expect(await run(["--from", dir, "--design-url", host.url, "--token", host.token], io)).toBe(2);
    const row = await newestRun();
    expect(err.join("")).toContain(
      `design:collect: run ${row.id} was submitted but its replay failed: The CSS asset http://127.0.0.1:3000/a.css has no bytes in the artifact store.\n`,
    );
    expect(row).toMatchObject({ status: "failed", replay: null });
    expect(await testDb.db.$count(schema.galleryScreens, eq(schema.galleryScreens.runId, row.id))).toBe(0);
  });
});

describe("the loader", () => {
  it("reads the run back as it was sent", async () => {
    const saved = await loadRunFolder(dir);
    expect(saved.assets.map((asset) => asset.url)).toEqual([
      "http://127.0.0.1:3000/a.css",
      "http://127.0.0.1:3000/a.js",
    ]);
    expect(saved.captures).toHaveLength(2);
    expect(saved.captures[0]?.image).toMatchObject({ type: "png", width: 40, height: 25 });
    expect(saved.captures[1]?.html).toBeNull();
  });

  it("refuses a folder whose file does not match its SHA-256", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), "utf8"));
    await fs.appendFile(path.join(dir, manifest.assets[0].file), "/* changed */");
    await expect(loadRunFolder(dir)).rejects.toThrow(/does not match its SHA-256/);
  });

  it("refuses a file outside the folder, a failed run, and a folder without a run", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), "utf8"));
    manifest.assets[0].file = "../../etc/passwd";
    await fs.writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest));
    await expect(loadRunFolder(dir)).rejects.toThrow(/is outside/);
    manifest.status = "failed";
    manifest.error = "Chromium crashed";
    await fs.writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest));
    await expect(loadRunFolder(dir)).rejects.toThrow(/failed \(Chromium crashed\)/);
    await expect(loadRunFolder(path.join(dir, "images"))).rejects.toThrow(/holds no saved run/);
  });

  it("will not write a run over a folder that holds something else", async () => {
    const other = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-collect-other-"));
    await fs.writeFile(path.join(other, "notes.txt"), "mine");
    await expect(folderSink(other, { target: null, design_url: null, signed_in: false })).rejects.toThrow(
      /not empty and holds no saved run/,
    );
    await fs.rm(other, { recursive: true, force: true });
  });
});

describe("uploadSink against the real design host", () => {
  async function openSink() {
    const sink = uploadSink({ designUrl: host.url, token: host.token, log: () => {} });
    await sink.open({ apps: null, viewports: ["desktop"], langs: ["en"] });
    return sink;
  }
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error as CollectHttpError,
    );

  it("sends an asset once however often it is given", async () => {
    const sink = await openSink();
    for (let i = 0; i < 3; i += 1) {
      await sink.asset({ sha256: sha256(css), type: "css", url: "http://x/a.css", bytes: css });
    }
    expect(host.answers()).toEqual(["/runs 201", `/runs/${sink.runId}/assets 201`]);
    expect(sink.runId).toBe((await newestRun()).id);
  });

  it("takes 200 for the same capture again and stops at 409 capture_key_taken for another image under its key", async () => {
    const sink = await openSink();
    await sink.asset({ sha256: sha256(css), type: "css", url: "http://x/a.css", bytes: css });
    await sink.asset({ sha256: sha256(js), type: "js", url: "http://x/a.js", bytes: js });
    await sink.capture(capture("/", false));
    await sink.capture(capture("/", false));
    const taken = await refusal(
      sink.capture(capture("/", false, { image: { type: "png", width: 41, height: 25, bytes: png(41, 25) } })),
    );
    expect(taken).toBeInstanceOf(CollectHttpError);
    expect(taken?.status).toBe(409);
    expect(taken?.body).toMatchObject({ error: "capture_key_taken", capture: { key: HOME } });
    expect(taken?.message).toMatch(
      /HTTP 409 Collect run \d+ already has capture \w{40} with another image .* \(capture_key_taken\)/,
    );
    expect(
      host
        .answers()
        .slice(-3)
        .map((answer) => answer.split(" ")[1]),
    ).toEqual(["201", "200", "409"]);
  });

  it("reports a file over its limit as the host's 413 payload_too_large, and a wrong field as its 422", async () => {
    const sink = await openSink();
    const big = Buffer.alloc(10_241, " ");
    const asset = await refusal(sink.asset({ sha256: sha256(big), type: "css", url: "http://x/big.css", bytes: big }));
    expect(asset).toMatchObject({ status: 413, body: { error: "payload_too_large" } });
    const image = Buffer.concat([png(40, 25), Buffer.alloc(30_721 - png(40, 25).length)]);
    const large = capture("/large", false, { assets: [], image: { type: "png", width: 40, height: 25, bytes: image } });
    expect(await refusal(sink.capture(large))).toMatchObject({ status: 413, body: { error: "payload_too_large" } });
    const html = capture("/html", false, { assets: [], html: Buffer.alloc(10_241, "a") });
    expect(await refusal(sink.capture(html))).toMatchObject({ status: 413, body: { error: "payload_too_large" } });
    // A meta field of the wrong type: 422 with the field named, and the client's message says which.
    const wrong = capture("/wrong", false, { assets: [], meta: { title: 5 } as unknown as CollectedCapture["meta"] });
    const invalid = await refusal(sink.capture(wrong));
    expect(invalid).toMatchObject({ status: 422, body: { errors: { "meta.title": [expect.any(String)] } } });
    expect(invalid?.message).toMatch(/HTTP 422 .*"meta\.title"/);
    expect(await capturesOf(sink.runId as number)).toEqual([]);
  });
});
