import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CaptureMeta } from "@shelf/api/schemas";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { type RunningServer, startServer } from "@shelf/web/test/server";
import { generate, parse as parseCss, walk } from "css-tree";
import { and, eq, inArray } from "drizzle-orm";
import { parse as parseHtml, serialize } from "parse5";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../src/cli";
import { launchChromium } from "../src/collect";
import { loadRunFolder, MANIFEST, type ManifestCapture, type RunManifest, uploadRunFolder } from "../src/folder";
import { imageInfo } from "../src/image-info";
import { type DesignHost, startDesignHost } from "./design-host";

/**
 * The reference collect agent end to end against the production build of the accounts app (apps/web, demo data) in
 * Chromium: a run saved to a folder, its captures (signed out and in, both viewports and languages) within every
 * limit of the contract; a second run through the real command line (a few pages, one language) uploading as it
 * goes to the real design host (test/design-host.ts) on the same database, replayed into gallery rows; then the
 * saved folder uploaded too, its screens replacing the second run's.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DEMO_EMAIL = "demo@shelf.test";
const DEMO_PASSWORD = "shelf-demo-password";

let testDb: TestDatabase;
let server: RunningServer;
let host: DesignHost;
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
  host = await startDesignHost(testDb);
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

/** A capture's page and state: what its key is made of. */
const stateOf = (capture: ManifestCapture) =>
  `${capture.meta.page}|${capture.viewport}|${capture.lang}|${capture.auth}|${capture.login_stage === true}`;

const pagesOf = (captures: ManifestCapture[]) => [...new Set(captures.map((c) => c.meta.page as string))].sort();

/** The states a page was captured in, as `viewport/lang/in|out`, each once, sorted. */
const statesOf = (captures: ManifestCapture[]) =>
  [...new Set(captures.map((c) => `${c.viewport}/${c.lang}/${c.auth ? "in" : "out"}`))].sort();

async function galleryApp(slug: string) {
  const [app] = await testDb.db.select().from(schema.galleryApps).where(eq(schema.galleryApps.slug, slug));
  if (!app) throw new Error(`the gallery has no app ${slug}`);
  return app;
}

const currentScreens = (appId: number) =>
  testDb.db
    .select()
    .from(schema.galleryScreens)
    .where(and(eq(schema.galleryScreens.appId, appId), eq(schema.galleryScreens.status, "current")));

async function variantStates(screenId: number): Promise<string[]> {
  const variants = await testDb.db
    .select()
    .from(schema.galleryScreenVariants)
    .where(eq(schema.galleryScreenVariants.screenId, screenId));
  return variants.map((v) => `${v.viewport}/${v.lang}/${v.auth ? "in" : "out"}`).sort();
}

/** An app's font and color terms (`gallery_app_terms`). */
async function appTerms(appId: number) {
  const rows = await testDb.db
    .select({ kind: schema.galleryTerms.kind, slug: schema.galleryTerms.slug, generic: schema.galleryTerms.generic })
    .from(schema.galleryAppTerms)
    .innerJoin(schema.galleryTerms, eq(schema.galleryTerms.id, schema.galleryAppTerms.termId))
    .where(eq(schema.galleryAppTerms.appId, appId));
  return { font: rows.filter((r) => r.kind === "font"), color: rows.filter((r) => r.kind === "color") };
}

/**
 * The font families of every `font-family` declaration (without var()) and the opaque hex colors (#rgb, #rrggbb)
 * anywhere in the declarations, custom properties included, in lowercase: what the replay must have read.
 */
function declaredStyles(sheets: string[]): { fonts: string[]; colors: string[] } {
  const fonts = new Set<string>();
  const colors = new Set<string>();
  for (const sheet of sheets) {
    walk(parseCss(sheet, { parseCustomProperty: true }), {
      visit: "Declaration",
      enter(node) {
        if (node.property === "font-family") {
          const text = generate(node.value);
          if (!text.includes("var(")) {
            for (const family of text.split(",")) {
              const name = family
                .trim()
                .replace(/^["']|["']$/g, "")
                .toLowerCase()
                .replace(/\s+/g, " ");
              if (name && !["inherit", "initial", "unset", "revert", "revert-layer"].includes(name)) fonts.add(name);
            }
          }
        }
        walk(node.value, {
          visit: "Hash",
          enter(hash) {
            const digits = hash.value.toLowerCase();
            if (/^[0-9a-f]{3}$/.test(digits)) colors.add(`#${[...digits].map((d) => d + d).join("")}`);
            else if (/^[0-9a-f]{6}$/.test(digits)) colors.add(`#${digits}`);
          },
        });
      },
    });
  }
  return { fonts: [...fonts].sort(), colors: [...colors].sort() };
}

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

  it("follows no link to a file as a page: the product page's Download button starts a download, logged and skipped", () => {
    expect(firstLog).toMatch(
      /accounts \/account\/products\/\d+\/download\S* desktop\/en: a download, not a page: skipped/,
    );
    expect(first.captures.filter((capture) => capture.meta.page?.endsWith("/download"))).toEqual([]);
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
  it("collects a few pages at both viewports in one language, uploads them as it goes to the design host, and submits", async () => {
    const secondDir = path.join(workDir, "second");
    const { stdout, stderr } = await promisify(execFile)(
      path.join(root, "node_modules/.bin/tsx"),
      [
        "tooling/design-collect/src/main.ts",
        ...["--design-url", host.url, "--token", host.token, "--target", server.url, "--apps", "accounts"],
        ...["--viewports", "desktop,mobile", "--langs", "en", "--max-pages", "3"],
        ...["--email", DEMO_EMAIL, "--password", DEMO_PASSWORD, "--out", secondDir],
      ],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    const id = Number(/^submitted run (\d+): replayed \{/m.exec(stdout)?.[1]);
    expect(id, `${stdout}\n${stderr}`).toBeGreaterThan(0);
    const second: RunManifest = JSON.parse(await fs.readFile(path.join(secondDir, MANIFEST), "utf8"));
    expect(second.options).toEqual({ apps: ["accounts"], viewports: ["desktop", "mobile"], langs: ["en"] });
    // The same page in the same state has the same key in every run.
    const firstKeys = new Map(first.captures.map((capture) => [capture.key, stateOf(capture)]));
    for (const capture of second.captures) expect(firstKeys.get(capture.key)).toBe(stateOf(capture));
    const signedOut = pagesOf(second.captures.filter((capture) => !capture.auth));
    expect(signedOut).toEqual(["/", "/sign-in", "/sign-up"]);

    // What the host holds: the run as sent, each asset once.
    const [row] = await testDb.db.select().from(schema.collectRuns).where(eq(schema.collectRuns.id, id));
    expect(row).toMatchObject({
      status: "replayed",
      openerName: host.agent,
      apps: ["accounts"],
      viewports: ["desktop", "mobile"],
      langs: ["en"],
      accounts: [{ found: true, reason: null }],
      buildVersions: second.submit?.build_versions ?? null,
    });
    const captures = await testDb.db.select().from(schema.collectCaptures).where(eq(schema.collectCaptures.runId, id));
    expect(captures.map((capture) => capture.key).sort()).toEqual(second.captures.map((c) => c.key).sort());
    const assets = await testDb.db.select().from(schema.collectAssets).where(eq(schema.collectAssets.runId, id));
    expect(assets.map((asset) => asset.sha256).sort()).toEqual(second.assets.map((a) => a.sha256).sort());
    const uploads = host.proxy.requests.filter((request) => request.path.startsWith(`/api/agent/collect/runs/${id}/`));
    expect(uploads.filter((r) => r.path.endsWith("/assets")).every((r) => r.status === 201)).toBe(true);
    expect(uploads.filter((r) => r.path.endsWith("/captures")).every((r) => r.status === 201)).toBe(true);

    // The gallery: one current screen per page the run saw, a variant per viewport and signed-in state it was seen in.
    const accounts = await galleryApp("accounts");
    const screens = await currentScreens(accounts.id);
    const ok = second.captures.filter((capture) => capture.outcome === "ok");
    expect(screens.map((screen) => screen.page).sort()).toEqual(pagesOf(ok));
    for (const screen of screens) {
      expect(screen.runId).toBe(id);
      expect(await variantStates(screen.id)).toEqual(statesOf(ok.filter((c) => c.meta.page === screen.page)));
    }
    expect(screens.find((screen) => screen.page === "/sign-in")?.pageType).toBe("sign-in");
    const flows = await testDb.db.select().from(schema.galleryFlows).where(eq(schema.galleryFlows.runId, id));
    // A walk per signed-in state, viewport and language it walked.
    expect(flows.map((flow) => `${flow.kind}:${flow.slug}`).sort()).toEqual([
      "declared:sign-in",
      "declared:sign-up",
      "walk:signed-in-desktop-en",
      "walk:signed-in-mobile-en",
      "walk:signed-out-desktop-en",
      "walk:signed-out-mobile-en",
    ]);

    // Fonts and colors: every font family and every opaque hex color the uploaded stylesheets declare is a term,
    // of the app and of its screens (read here with css-tree on its own, as a second reading of the same CSS).
    const sheets = await Promise.all(
      second.assets.filter((a) => a.type === "css").map((a) => fs.readFile(path.join(secondDir, a.file), "utf8")),
    );
    const declared = declaredStyles(sheets);
    expect(declared.fonts).toEqual(expect.arrayContaining(["noto sans kr", "system-ui"]));
    expect(declared.colors).toContain("#1f5fd6");
    const terms = await appTerms(accounts.id);
    expect(terms.font.map((term) => term.slug)).toEqual(expect.arrayContaining(declared.fonts));
    expect(terms.color.map((term) => term.slug)).toEqual(expect.arrayContaining(declared.colors));
    expect(terms.font.find((term) => term.slug === "system-ui")?.generic).toBe(true);
    expect(terms.font.find((term) => term.slug === "noto sans kr")?.generic).toBe(false);
    const signIn = screens.find((screen) => screen.page === "/sign-in");
    const screenTerms = await testDb.db
      .select({ kind: schema.galleryTerms.kind, slug: schema.galleryTerms.slug })
      .from(schema.galleryScreenTerms)
      .innerJoin(schema.galleryTerms, eq(schema.galleryTerms.id, schema.galleryScreenTerms.termId))
      .where(eq(schema.galleryScreenTerms.screenId, signIn?.id as number));
    expect(screenTerms).toEqual(
      expect.arrayContaining([
        { kind: "font", slug: "noto sans kr" },
        { kind: "color", slug: "#1f5fd6" },
        { kind: "page_type", slug: "sign-in" },
      ]),
    );

    // The run's status, as the host answers it, says what the replay added: all of it, to an empty gallery.
    const answered = await host.run(id);
    expect(answered).toMatchObject({
      status: "replayed",
      counts: { captures: second.captures.length, assets: second.assets.length },
      replay: {
        added: { apps: 1, screens: screens.length, flows: flows.length },
        changed: { apps: 0, screens: 0, flows: 0 },
        removed: { apps: 0, screens: 0, flows: 0 },
      },
    });
    expect(stdout).toContain(`submitted run ${id}: replayed ${JSON.stringify(answered.replay)}`);
  });

  it("uploads the saved run (both languages): its screens replace the older run's, a variant per language", async () => {
    const accounts = await galleryApp("accounts");
    const before = new Map((await currentScreens(accounts.id)).map((screen) => [screen.page, screen]));
    const submitted = await uploadRunFolder(firstDir, { designUrl: host.url, token: host.token });
    const id = submitted.id;
    const ok = first.captures.filter((capture) => capture.outcome === "ok");
    const pages = pagesOf(ok);
    const screens = await currentScreens(accounts.id);
    expect(screens.map((screen) => screen.page).sort()).toEqual(pages);
    for (const screen of screens) {
      expect(screen.runId).toBe(id);
      const states = await variantStates(screen.id);
      expect(states).toEqual(statesOf(ok.filter((c) => c.meta.page === screen.page)));
      // Every state the walk covered, in both languages.
      if (screen.page === "/account") {
        expect(states).toEqual(["desktop/en/in", "desktop/ko/in", "mobile/en/in", "mobile/ko/in"]);
      }
    }
    // The older run's screens are history: replaced by the newer screen of their page, still there by id.
    const older = await testDb.db
      .select()
      .from(schema.galleryScreens)
      .where(
        inArray(
          schema.galleryScreens.id,
          [...before.values()].map((screen) => screen.id),
        ),
      );
    expect(older).toHaveLength(before.size);
    for (const screen of older) {
      expect(screen).toMatchObject({
        status: "replaced",
        retiredByRunId: id,
        replacedById: screens.find((current) => current.page === screen.page)?.id,
      });
    }
    const added = pages.filter((page) => !before.has(page)).length;
    expect(submitted).toMatchObject({
      status: "replayed",
      replay: {
        added: { apps: 0, screens: added },
        changed: { apps: 1, screens: before.size },
        removed: { apps: 0, screens: 0 },
      },
    });
    expect(await host.run(id)).toMatchObject({ replay: submitted.replay });
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
