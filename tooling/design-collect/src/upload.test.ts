import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeHost, startFakeDesignHost } from "../test/fake-design-host";
import { run } from "./cli";
import { folderSink, loadRunFolder, MANIFEST, uploadRunFolder } from "./folder";
import { captureKey } from "./keys";
import { type CollectedCapture, sha256 } from "./run";
import { CollectionLocked, uploadSink } from "./upload";

/**
 * The upload client and the loader against a stand-in design host that checks each field as the contract states
 * it (the real routes are tested with this client after the merge).
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
    meta: { app: "accounts", page, title: "Shelf", page_type: "home", patterns: ["form"], elements: ["button"] },
    image: { type: "png", width: 40, height: 25, bytes: image },
    html: Buffer.from(`<!DOCTYPE html><html><head></head><body><h1>${page}</h1></body></html>`),
    assets: [sha256(css), sha256(js)],
    ...overrides,
  };
}

let host: FakeHost;
let dir: string;

beforeEach(async () => {
  host = await startFakeDesignHost();
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
  await host.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("a saved run uploaded with the loader", () => {
  it("opens a run, sends each asset once, then each capture with every field, then submits", async () => {
    const submitted = await uploadRunFolder(dir, { designUrl: host.url, token: host.token });
    expect(submitted).toMatchObject({ id: 1, status: "replayed" });
    const uploaded = host.runs[0];
    expect(uploaded?.body).toEqual({ apps: ["accounts"], viewports: ["desktop"], langs: ["en"] });
    expect(
      host.requests.map((request) => `${request.path.replace(/^\/api\/agent\/collect/, "")} ${request.status}`),
    ).toEqual([
      "/runs 201",
      "/runs/1/assets 201",
      "/runs/1/assets 201",
      "/runs/1/captures 201",
      "/runs/1/captures 201",
      "/runs/1/submit 200",
    ]);
    expect(uploaded?.assets.get(sha256(css))).toMatchObject({ type: "css", url: "http://127.0.0.1:3000/a.css" });
    const home = uploaded?.captures.get(
      captureKey({ app: "accounts", page: "/", viewport: "desktop", lang: "en", auth: false }),
    );
    expect(home).toMatchObject({ auth: "false", outcome: "ok", http_status: "200", viewport: "desktop", lang: "en" });
    // Null fields are left out, as the contract's multipart reads them.
    expect(home).not.toHaveProperty("login_stage");
    expect(home).not.toHaveProperty("message");
    expect(JSON.parse(home?.meta as string)).toMatchObject({ app: "accounts", page: "/" });
    expect(home?.assets).toEqual([sha256(css), sha256(js)]);
    const account = uploaded?.captures.get(
      captureKey({ app: "accounts", page: "/account", viewport: "desktop", lang: "en", auth: true }),
    );
    expect(account).toMatchObject({ auth: "true", login_stage: "true", saved_state: "false", outcome: "redirected" });
    expect(account).not.toHaveProperty("http_status");
    expect(account?.html).toBeNull();
    expect(uploaded?.submit).toEqual({ accounts: [{ found: true, reason: null }], build_versions: ["2026.11.1"] });
  });

  it("waits as told by a 429 and tries again", async () => {
    host.throttleFirstAsset = true;
    const log: string[] = [];
    await uploadRunFolder(dir, { designUrl: host.url, token: host.token, log: (line) => log.push(line) });
    expect(host.requests.filter((request) => request.path.endsWith("/assets")).map((r) => r.status)).toEqual([
      429, 201, 201,
    ]);
    expect(log.join("\n")).toMatch(/HTTP 429, trying again in 0 s/);
  });

  it("fails the run with the error when an upload is refused midway", async () => {
    host.breakCapture = 2;
    await expect(uploadRunFolder(dir, { designUrl: host.url, token: host.token })).rejects.toThrow(
      /upload capture \w{40} \(http:\/\/127\.0\.0\.1:3000\/account desktop en\): HTTP 500 Server Error/,
    );
    expect(host.runs[0]?.status).toBe("failed");
    expect(host.runs[0]?.error).toMatch(/HTTP 500/);
    expect(host.requests.at(-1)?.path).toBe("/api/agent/collect/runs/1/fail");
  });

  it("names the holder of the lock and its lease end on 409, and sends nothing else", async () => {
    host.lockedBy = { id: 7, opener: "nightly", lease_expires_at: "2026-11-23T21:30:00.000Z" };
    const error = await uploadRunFolder(dir, { designUrl: host.url, token: host.token }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CollectionLocked);
    expect((error as CollectionLocked).holder).toEqual({
      id: 7,
      opener: "nightly",
      leaseExpiresAt: "2026-11-23T21:30:00.000Z",
    });
    expect(host.requests).toHaveLength(1);
  });

  it("opens again when the lock changed hands while opening (409 conflict), not taking it for the lock", async () => {
    host.openConflicts = 2;
    await uploadRunFolder(dir, { designUrl: host.url, token: host.token });
    expect(host.requests.slice(0, 3).map((request) => request.status)).toEqual([409, 409, 201]);
    expect(host.runs[0]?.status).toBe("submitted");
  });

  it("exits non-zero from the command line: 3 for the lock (holder and lease printed), 2 for a refused token", async () => {
    host.lockedBy = { id: 7, opener: "nightly", lease_expires_at: "2026-11-23T21:30:00.000Z" };
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => err.push(text) };
    expect(await run(["--from", dir, "--design-url", host.url, "--token", host.token], io)).toBe(3);
    expect(err.join("")).toContain("run 7 of nightly, its lease ends 2026-11-23T21:30:00.000Z");
    host.lockedBy = null;
    err.length = 0;
    expect(await run(["--from", dir, "--design-url", host.url, "--token", "wrong"], io)).toBe(2);
    expect(err.join("")).toMatch(/open a run: HTTP 401 Unauthenticated\. \(invalid_api_key\)/);
  });

  it("fails the run when interrupted, so the lock is not held until the lease ends", async () => {
    const interrupt = new AbortController();
    interrupt.abort(new Error("interrupted"));
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => err.push(text) };
    expect(await run(["--from", dir, "--design-url", host.url, "--token", host.token], io, interrupt.signal)).toBe(130);
    expect(host.runs[0]).toMatchObject({ status: "failed", error: "interrupted" });
    expect(err.join("")).toContain("interrupted: the run was failed");
  });

  it("uploads from the command line and prints the replayed run", async () => {
    const out: string[] = [];
    const code = await run(["--from", dir, "--design-url", host.url, "--token", host.token], {
      stdout: (text) => out.push(text),
      stderr: () => {},
    });
    expect(code).toBe(0);
    expect(out.join("")).toMatch(/^submitted run 1: replayed/);
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

describe("uploadSink", () => {
  it("sends an asset once however often it is given", async () => {
    const sink = uploadSink({ designUrl: host.url, token: host.token, log: () => {} });
    await sink.open({ apps: null, viewports: ["mobile"], langs: ["ko"] });
    for (let i = 0; i < 3; i += 1) {
      await sink.asset({ sha256: sha256(css), type: "css", url: "http://x/a.css", bytes: css });
    }
    expect(host.requests.filter((request) => request.path.endsWith("/assets"))).toHaveLength(1);
    expect(sink.runId).toBe(1);
  });
});
