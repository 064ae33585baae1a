import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CaptureMeta } from "@shelf/api/schemas";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { type RunningServer, startServer } from "@shelf/web/test/server";
import { parse as parseCss } from "css-tree";
import { parse as parseHtml, serialize } from "parse5";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../src/cli";
import { launchChromium } from "../src/collect";
import { loadRunFolder, MANIFEST, type RunManifest } from "../src/folder";
import { imageInfo } from "../src/image-info";
import { type FakeHost, startFakeDesignHost } from "./fake-design-host";

/**
 * The reference collect agent end to end against the production build of the accounts app (apps/web, demo data) in
 * Chromium: a run saved to a folder, its captures (signed out and in, both viewports and languages) within every
 * limit of the contract, and a second run through the real command line uploading to a stand-in design host.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DEMO_EMAIL = "demo@shelf.test";
const DEMO_PASSWORD = "shelf-demo-password";

let testDb: TestDatabase;
let server: RunningServer;
let host: FakeHost;
let browser: Browser;
let workDir: string;
let first: RunManifest;
let firstDir: string;
let firstLog = "";

beforeAll(async () => {
  testDb = await createTestDatabase();
  server = await startServer({
    DATABASE_URL: testDb.url,
    SHELF_DEMO: "1",
    SHELF_RATE_LIMIT_PER_MINUTE: "1000",
    SHELF_RATE_LIMIT_NAMESPACE: `design-collect-${Date.now()}`,
  });
  host = await startFakeDesignHost();
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-design-collect-"));
  firstDir = path.join(workDir, "first");
  const out: string[] = [];
  const code = await run(
    [
      "--target",
      server.url,
      "--apps",
      "accounts",
      "--email",
      DEMO_EMAIL,
      "--password",
      DEMO_PASSWORD,
      "--out",
      firstDir,
    ],
    { stdout: (text) => out.push(text), stderr: (text) => out.push(text) },
  );
  firstLog = out.join("");
  expect(code, firstLog).toBe(0);
  first = JSON.parse(await fs.readFile(path.join(firstDir, MANIFEST), "utf8"));
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await server?.stop();
  await testDb?.drop();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
});

describe("a run saved to a folder", () => {
  it("has captures signed out and signed in at both viewports and languages, the sign-in account found", () => {
    expect(first.format).toBe("shelf-design-collect-run");
    expect(first.status).toBe("submitted");
    expect(first.options).toEqual({ apps: ["accounts"], viewports: ["desktop", "mobile"], langs: ["ko", "en"] });
    expect(first.submit?.accounts).toEqual([{ found: true, reason: null }]);
    const combos = new Set(first.captures.map((c) => `${c.auth}/${c.viewport}/${c.lang}`));
    expect([...combos].sort()).toEqual(
      [false, true].flatMap((auth) =>
        ["desktop", "mobile"].flatMap((viewport) => ["en", "ko"].map((lang) => `${auth}/${viewport}/${lang}`)),
      ),
    );
    const pages = (auth: boolean) => [
      ...new Set(first.captures.filter((c) => c.auth === auth).map((c) => c.meta.page)),
    ];
    expect(pages(false)).toEqual(expect.arrayContaining(["/", "/sign-in", "/sign-up", "/docs/api"]));
    expect(pages(true)).toEqual(
      expect.arrayContaining([
        "/sign-in",
        "/account",
        "/account/products/[product]",
        "/account/devices",
        "/settings/api-keys",
        "/settings/security",
      ]),
    );
    // Every page at every viewport and language: the same pages in each combination.
    for (const auth of [false, true]) {
      const perCombo = new Map<string, string[]>();
      for (const capture of first.captures.filter((c) => c.auth === auth)) {
        const combo = `${capture.viewport}/${capture.lang}`;
        perCombo.set(combo, [...(perCombo.get(combo) ?? []), capture.meta.page as string].sort());
      }
      expect(new Set([...perCombo.values()].map((list) => list.join(","))).size).toBe(1);
    }
  });

  it("records outcomes: signed-in pages ok, the sign-in page as the login stage, the sign-in flow", () => {
    const library = first.captures.filter((c) => c.auth && c.meta.page === "/account");
    expect(library).toHaveLength(4);
    for (const capture of library) {
      expect(capture).toMatchObject({ outcome: "ok", http_status: 200, login_stage: false, saved_state: false });
      expect(new URL(capture.final_url as string).pathname).toBe("/account");
      expect(capture.meta).toMatchObject({ flow: "sign-in", flow_step: 2, page_type: "list" });
    }
    const loginStage = first.captures.filter((c) => c.login_stage === true);
    expect(loginStage).toHaveLength(4);
    for (const capture of loginStage) {
      expect(capture).toMatchObject({ auth: true, outcome: "ok", http_status: 200 });
      expect(capture.meta).toMatchObject({ page: "/sign-in", flow: "sign-in", flow_step: 1, page_type: "sign-in" });
      expect(capture.meta.patterns).toContain("sign-in-form");
    }
    for (const capture of first.captures.filter((c) => !c.auth)) {
      expect(capture.login_stage).toBeNull();
      expect(capture.saved_state).toBeNull();
      expect(capture.outcome).toBe("ok");
    }
  });

  it("speaks each language: Korean pages in Korean, English in English", async () => {
    for (const capture of first.captures) {
      if (!capture.html) throw new Error(`no html for ${capture.key}`);
      const html = await fs.readFile(path.join(firstDir, capture.html.file), "utf8");
      if (capture.meta.page !== "/docs/api") expect(html).toContain(`<html lang="${capture.lang}">`);
    }
    const title = (lang: string) =>
      first.captures.find((c) => !c.auth && c.meta.page === "/sign-in" && c.lang === lang)?.meta.title;
    expect(title("en")).toBe("Sign in · Shelf");
    expect(title("ko")).not.toBe(title("en"));
    expect(title("ko")).toMatch(/[가-힣]/);
  });

  it("keeps every image within 30720 bytes, a real WebP or JPEG of the size it states", async () => {
    const page = await browser.newPage();
    for (const capture of first.captures) {
      const bytes = await fs.readFile(path.join(firstDir, capture.image.file));
      expect(bytes.length).toBeLessThanOrEqual(30_720);
      expect(bytes.length).toBe(capture.image.size);
      const webp = bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString() === "WEBP";
      const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
      expect(webp || jpeg).toBe(true);
      const info = imageInfo(bytes);
      expect(info).toEqual({ type: capture.image.type, width: capture.image.width, height: capture.image.height });
      // Decoded by Chromium: the bytes are an image of that size, not just a header.
      const decoded = await page.evaluate(async (base64) => {
        const blob = await (await fetch(`data:application/octet-stream;base64,${base64}`)).blob();
        const bitmap = await createImageBitmap(blob);
        return { width: bitmap.width, height: bitmap.height };
      }, bytes.toString("base64"));
      expect(decoded).toEqual({ width: capture.image.width, height: capture.image.height });
      expect(capture.image.width).toBeLessThanOrEqual(capture.viewport === "desktop" ? 720 : 390);
      expect(capture.image.width).toBeGreaterThanOrEqual(100);
    }
    await page.close();
  });

  it("keeps every HTML within 10240 bytes, well formed, without scripts, styles or data attributes", async () => {
    for (const capture of first.captures) {
      if (!capture.html) throw new Error(`no html for ${capture.key}`);
      const html = await fs.readFile(path.join(firstDir, capture.html.file), "utf8");
      expect(Buffer.byteLength(html)).toBeLessThanOrEqual(10_240);
      expect(html.startsWith("<!DOCTYPE html><html")).toBe(true);
      // Parsed and written again by the HTML standard's parser, nothing moves: the markup is well formed.
      expect(serialize(parseHtml(html))).toBe(html);
      expect(html).not.toMatch(/<script|<style|<!--| data-[\w-]+=| style=/i);
      // The API reference is a renderer's page of its own, without the layout.
      if (capture.meta.page !== "/docs/api") expect(html).toContain("<main");
    }
    const apiKeys = first.captures.find((c) => c.auth && c.meta.page === "/settings/api-keys" && c.lang === "en");
    const html = await fs.readFile(path.join(firstDir, apiKeys?.html?.file as string), "utf8");
    expect(html).toContain("API keys");
  });

  it("uploads the CSS and JS the pages loaded within 10240 bytes each, every stylesheet parseable", async () => {
    expect(first.assets.some((asset) => asset.type === "css")).toBe(true);
    const known = new Set(first.assets.map((asset) => asset.sha256));
    for (const asset of first.assets) {
      const bytes = await fs.readFile(path.join(firstDir, asset.file));
      expect(bytes.length).toBeLessThanOrEqual(10_240);
      expect(asset.url.length).toBeLessThanOrEqual(2000);
      if (asset.type !== "css") continue;
      const errors: string[] = [];
      parseCss(bytes.toString("utf8"), { onParseError: (error) => errors.push(error.message) });
      expect(errors, asset.url).toEqual([]);
    }
    for (const capture of first.captures) {
      // The API reference loads one script, far over the limit.
      if (capture.meta.page !== "/docs/api") expect(capture.assets.length).toBeGreaterThan(0);
      for (const sha of capture.assets) expect(known.has(sha)).toBe(true);
    }
    // Scripts over the limit are named in the log, not sent.
    expect(firstLog).toMatch(/skipped script \S+: \d+ bytes, over the asset limit of 10240/);
  });

  it("gives each capture a 40-character key, unique in the run, and meta valid as CaptureMeta", () => {
    const keys = first.captures.map((capture) => capture.key);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{40}$/);
    expect(new Set(keys).size).toBe(keys.length);
    for (const capture of first.captures) {
      const parsed = CaptureMeta.safeParse(capture.meta);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      expect(capture.meta.app).toBe("accounts");
      expect(capture.meta.elements?.length).toBeGreaterThan(0);
    }
    const devices = first.captures.find((c) => c.meta.page === "/account/devices");
    expect(devices?.meta.elements).toEqual(expect.arrayContaining(["navigation", "heading", "button"]));
  });

  it("reads back through the loader with every file checked", async () => {
    const saved = await loadRunFolder(firstDir);
    expect(saved.captures.map((capture) => capture.key)).toEqual(first.captures.map((capture) => capture.key));
    expect(saved.assets).toHaveLength(first.assets.length);
    expect(saved.submit).toEqual(first.submit);
  });
});

describe("the command line", () => {
  it("collects again with the same keys and uploads the run as it goes, then submits", async () => {
    const secondDir = path.join(workDir, "second");
    const { stdout, stderr } = await promisify(execFile)(
      path.join(root, "node_modules/.bin/tsx"),
      [
        "tooling/design-collect/src/main.ts",
        "--design-url",
        host.url,
        "--token",
        host.token,
        "--target",
        server.url,
        "--apps",
        "accounts",
        "--viewports",
        "mobile",
        "--langs",
        "ko",
        "--email",
        DEMO_EMAIL,
        "--password",
        DEMO_PASSWORD,
        "--out",
        secondDir,
      ],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(stdout).toMatch(/submitted run 1: replayed/);
    const second: RunManifest = JSON.parse(await fs.readFile(path.join(secondDir, MANIFEST), "utf8"));
    const keysOf = (manifest: RunManifest) =>
      manifest.captures
        .filter((capture) => capture.viewport === "mobile" && capture.lang === "ko")
        .map((capture) => `${capture.meta.page}|${capture.auth}|${capture.login_stage}|${capture.key}`)
        .sort();
    expect(keysOf(second), stderr).toEqual(keysOf(first));

    const uploaded = host.runs[0];
    expect(uploaded?.status).toBe("submitted");
    expect(uploaded?.body).toEqual({ apps: ["accounts"], viewports: ["mobile"], langs: ["ko"] });
    expect([...(uploaded?.captures.keys() ?? [])].sort()).toEqual(second.captures.map((c) => c.key).sort());
    expect([...(uploaded?.assets.keys() ?? [])].sort()).toEqual(second.assets.map((a) => a.sha256).sort());
    expect(uploaded?.submit).toEqual({ accounts: [{ found: true, reason: null }], build_versions: null });
    // Each asset once: no asset upload was answered 200 (already there).
    expect(host.requests.filter((r) => r.path.endsWith("/assets") && r.status !== 201)).toEqual([]);
  });

  it("reports an account the sign-in page refuses, with the page's reason, and walks signed out only", async () => {
    const dir = path.join(workDir, "refused");
    const err: string[] = [];
    const code = await run(
      [
        ...["--target", server.url, "--apps", "accounts", "--viewports", "desktop", "--langs", "en"],
        ...["--email", "nobody@example.test", "--password", "not-the-password", "--out", dir],
      ],
      { stdout: () => {}, stderr: (text) => err.push(text) },
    );
    expect(code, err.join("")).toBe(0);
    const manifest: RunManifest = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), "utf8"));
    expect(manifest.submit?.accounts).toEqual([{ found: false, reason: expect.stringMatching(/password/i) }]);
    const signedIn = manifest.captures.filter((capture) => capture.auth);
    expect(signedIn.map((capture) => [capture.meta.page, capture.login_stage])).toEqual([["/sign-in", true]]);
    expect(manifest.captures.filter((capture) => !capture.auth).length).toBeGreaterThanOrEqual(4);
    expect(err.join("")).toMatch(/the sign-in account was not found/);
  });
});
