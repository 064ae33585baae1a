import type { CaptureMeta } from "@shelf/api/schemas";
import type { CaptureOutcome, CollectApp, CollectLang, CollectViewport } from "@shelf/db/enums";
import { type Browser, type BrowserContext, chromium, type Page, type Response } from "playwright-core";
import { ASSET_LIMIT, splitCss } from "./css-split";
import { trimHtml } from "./html-trim";
import { captureKey } from "./keys";
import { type PageFacts, readPageFacts } from "./page-meta";
import { type CollectedCapture, type Log, type RunSink, type SubmitReport, sha256 } from "./run";
import { type AppSpec, isPagePath, type RouteSpec, routeOf } from "./targets";
import { ThumbnailMaker } from "./thumbnail";

export type CollectOptions = {
  /** Each app to walk with its address and routes. */
  apps: { spec: AppSpec; origin: string }[];
  viewports: CollectViewport[];
  langs: CollectLang[];
  /** The account the signed-in walk signs in with; none: signed out only. */
  credentials: { email: string; password: string } | null;
  /** The most pages (route patterns) one walk of one app visits, declared and found. */
  maxPages: number;
  log: Log;
  chromiumPath?: string;
  /** Stops the walk before its next page (Ctrl-C): the run is then failed, not left holding the lock. */
  signal?: AbortSignal;
};

/** The viewports: a laptop screen, and a phone with mobile emulation (touch, the mobile viewport meta, its agent). */
const VIEWPORTS = {
  desktop: { viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
  mobile: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
} as const;
/** The thumbnail's widest size per viewport, in pixels (it narrows until it fits the limit). */
const THUMBNAIL_WIDTH = { desktop: 720, mobile: 390 } as const;
/** The browser languages per collected language; the accounts app also reads its own cookie. */
const LOCALES = { ko: "ko-KR", en: "en-US" } as const;
const LOCALE_COOKIE = "shelf-locale";
const NAVIGATION_TIMEOUT_MS = 30_000;
const SETTLE_TIMEOUT_MS = 5_000;

/** Debian's Chromium, headless, as this machine lets it run (no sandbox as root, no background connections). */
export function launchChromium(executablePath?: string): Promise<Browser> {
  return chromium.launch({
    executablePath: executablePath ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

type Walk = { spec: AppSpec; origin: string; viewport: CollectViewport; lang: CollectLang; auth: boolean };
type Visit = { pattern: string; path: string; route: RouteSpec | null };

/**
 * Walks each app in Chromium, signed out and (with credentials) signed in, at each viewport and language, sending
 * each capture (and first the assets it names) to the sink as it is made, then submits. The first viewport and
 * language of each walk find the pages (the declared routes, then same-origin links, up to `maxPages`); the others
 * visit the same pages, so every combination has the same keys. On any error the run is failed and the error thrown.
 */
export async function collect(options: CollectOptions, sink: RunSink): Promise<SubmitReport> {
  const browser = await launchChromium(options.chromiumPath);
  const log = options.log;
  try {
    const thumbnails = await ThumbnailMaker.open(browser);
    const assets = new AssetCollector(sink, log);
    const buildVersions = new Set<string>();
    let account = null as { found: boolean; reason: string | null } | null;
    const userAgent = mobileUserAgent(browser.version());

    await sink.open({
      apps: options.apps.map(({ spec }) => spec.app),
      viewports: options.viewports,
      langs: options.langs,
    });
    try {
      for (const { spec, origin } of options.apps) {
        const walks = [false, ...(spec.signIn && options.credentials ? [true] : [])];
        for (const auth of walks) {
          let plan: Visit[] | null = null;
          for (const viewport of options.viewports) {
            for (const lang of options.langs) {
              const walk: Walk = { spec, origin, viewport, lang, auth };
              const context = await newContext(browser, walk, userAgent);
              try {
                const capture = (page: Page, visit: Visit, extra: CaptureExtra = {}) => {
                  options.signal?.throwIfAborted();
                  return capturePage(page, walk, visit, { thumbnails, assets, sink, log, buildVersions }, extra);
                };
                if (auth && options.credentials && spec.signIn) {
                  const signedIn = await signIn(context, walk, options.credentials, capture);
                  account = account?.found ? account : signedIn;
                  if (!signedIn.found) {
                    log(`${spec.app}: sign-in refused at ${viewport}/${lang}: ${signedIn.reason}`);
                    continue;
                  }
                }
                if (plan === null) plan = await discover(context, walk, options.maxPages, capture);
                else {
                  for (const visit of plan) {
                    const page = await context.newPage();
                    await capture(page, visit).finally(() => page.close());
                  }
                }
              } finally {
                await context.close();
              }
            }
          }
        }
      }
      const report: SubmitReport = {
        accounts: options.credentials ? [account ?? { found: false, reason: "no app to sign in to was walked" }] : null,
        build_versions: buildVersions.size > 0 ? [...buildVersions].sort() : null,
      };
      options.signal?.throwIfAborted();
      await sink.submit(report);
      return report;
    } catch (error) {
      await sink
        .fail((error as Error).message)
        .catch((failure: Error) => log(`could not fail the run: ${failure.message}`));
      throw error;
    }
  } finally {
    await browser.close();
  }
}

function mobileUserAgent(version: string): string {
  const major = version.split(".")[0] ?? "120";
  return `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`;
}

async function newContext(browser: Browser, walk: Walk, userAgent: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    ...VIEWPORTS[walk.viewport],
    ...(walk.viewport === "mobile" ? { userAgent } : {}),
    locale: LOCALES[walk.lang],
    colorScheme: "light",
    reducedMotion: "reduce",
    serviceWorkers: "block",
  });
  await context.addCookies([{ name: LOCALE_COOKIE, value: walk.lang, url: walk.origin, sameSite: "Lax" }]);
  // Some transforms name functions with a helper of their own; the page-side functions must not need it.
  await context.addInitScript("globalThis.__name ??= (target) => target;");
  return context;
}

/** Visits the declared routes of this walk, then the same-origin links found on them, up to `maxPages`. */
async function discover(
  context: BrowserContext,
  walk: Walk,
  maxPages: number,
  capture: (page: Page, visit: Visit) => Promise<PageFacts | null>,
): Promise<Visit[]> {
  const side = walk.auth ? "signed-in" : "signed-out";
  const queue: Visit[] = walk.spec.routes
    .filter((route) => route.auth === side && route.path !== undefined)
    .map((route) => ({ pattern: route.pattern, path: route.path as string, route }));
  const planned = new Set(queue.map((visit) => visit.pattern));
  const plan: Visit[] = [];
  while (queue.length > 0 && plan.length < maxPages) {
    const visit = queue.shift() as Visit;
    const page = await context.newPage();
    const facts = await capture(page, visit).finally(() => page.close());
    plan.push(visit);
    for (const link of facts?.links ?? []) {
      const url = new URL(link);
      if (url.origin !== walk.origin || !isPagePath(url.pathname)) continue;
      const route = routeOf(walk.spec, url.pathname);
      if (route && route.auth !== side) continue;
      const pattern = route?.pattern ?? url.pathname.slice(0, 200);
      if (planned.has(pattern) || planned.size >= maxPages) continue;
      planned.add(pattern);
      queue.push({ pattern, path: url.pathname, route });
    }
  }
  return plan;
}

type CaptureExtra = { loginStage?: boolean };
type CaptureTools = {
  thumbnails: ThumbnailMaker;
  assets: AssetCollector;
  sink: RunSink;
  log: Log;
  buildVersions: Set<string>;
};

/**
 * Opens one page and sends its capture: outcome and status of the navigation, the page's facts, its trimmed HTML, a
 * thumbnail of its first screen, and the CSS and JS it loaded. Resolves with the page's facts (null when the page
 * could not even be shown).
 */
async function capturePage(
  page: Page,
  walk: Walk,
  visit: Visit,
  tools: CaptureTools,
  extra: CaptureExtra,
): Promise<PageFacts | null> {
  const loaded: Promise<string[]>[] = [];
  page.on("response", (response) => {
    const kind = response.request().resourceType();
    if (kind === "stylesheet" || kind === "script") loaded.push(tools.assets.take(response, kind));
  });
  const requested = new URL(visit.path, walk.origin);
  let response: Response | null = null;
  let navigationError: string | null = null;
  try {
    response = await page.goto(requested.href, { waitUntil: "load", timeout: NAVIGATION_TIMEOUT_MS });
  } catch (error) {
    navigationError = (error as Error).message.split("\n")[0] ?? "navigation failed";
    // A link to a file (an address that answers with an attachment) starts a download and leaves a blank page.
    if (/Download is starting/.test(navigationError)) {
      tools.log(`${walk.spec.app} ${visit.path} ${walk.viewport}/${walk.lang}: a download, not a page: skipped`);
      return null;
    }
  }
  await page.waitForLoadState("networkidle", { timeout: SETTLE_TIMEOUT_MS }).catch(() => {});
  await page.evaluate(() => document.fonts.ready.then(() => undefined)).catch(() => {});

  let facts: PageFacts;
  let png: Buffer;
  let html: Buffer | null;
  try {
    facts = await page.evaluate(readPageFacts);
    html = Buffer.from(trimHtml(await page.content()), "utf8");
    png = await page.screenshot({ type: "png", scale: "css", animations: "disabled", caret: "hide" });
  } catch (error) {
    tools.log(
      `${walk.spec.app} ${visit.path} ${walk.viewport}/${walk.lang}: not captured: ${(error as Error).message}`,
    );
    return null;
  }
  const image = await tools.thumbnails.make(png, THUMBNAIL_WIDTH[walk.viewport]);
  const assetShas = [...new Set((await Promise.all(loaded)).flat())];
  if (facts.buildVersion) tools.buildVersions.add(facts.buildVersion);

  const finalUrl = new URL(page.url());
  const status = response?.status() ?? null;
  let outcome: CaptureOutcome = "ok";
  let message: string | null = null;
  if (navigationError !== null && response === null) {
    outcome = "failed";
    message = navigationError;
  } else if (status !== null && status >= 400) {
    outcome = "failed";
    message = `HTTP ${status}`;
  } else if (finalUrl.origin !== requested.origin || finalUrl.pathname !== requested.pathname) {
    outcome = "redirected";
  }

  const route = visit.route;
  const flow = extra.loginStage ? { name: "sign-in", step: 1 } : route?.flow;
  const meta: CaptureMeta = {
    app: walk.spec.app as CollectApp,
    page: visit.pattern,
    ...(facts.title ? { title: facts.title } : {}),
    page_type: route?.page_type ?? facts.guessedType,
    ...(flow ? { flow: flow.name, flow_step: flow.step } : {}),
    patterns: facts.patterns.slice(0, 50),
    elements: facts.elements.slice(0, 100),
    components: facts.components.slice(0, 100),
    // Every page is reached by walking the app in this state: the run's walk replaces the gallery's walk there.
    walk: true,
    mode: "light",
  };
  const capture: CollectedCapture = {
    key: captureKey({
      app: walk.spec.app,
      page: visit.pattern,
      viewport: walk.viewport,
      lang: walk.lang,
      auth: walk.auth,
      loginStage: extra.loginStage,
    }),
    url: requested.href,
    viewport: walk.viewport,
    lang: walk.lang,
    auth: walk.auth,
    outcome,
    message,
    login_stage: walk.auth ? extra.loginStage === true : null,
    saved_state: walk.auth ? false : null,
    final_url: finalUrl.href,
    http_status: status,
    meta,
    image,
    html,
    assets: assetShas,
  };
  await tools.sink.capture(capture);
  tools.log(
    `captured ${walk.spec.app} ${visit.pattern} ${walk.viewport}/${walk.lang}/${walk.auth ? "signed-in" : "signed-out"}` +
      `${extra.loginStage ? " (sign-in)" : ""}: ${outcome}${status ? ` ${status}` : ""}, ${image.type} ${image.bytes.length} B, html ${html.length} B, ${assetShas.length} assets`,
  );
  return facts;
}

/**
 * Signs in through the app's sign-in page as a person does: the page is captured first (the login stage), then the
 * email and password typed and the form sent; found when the browser leaves the sign-in page.
 */
async function signIn(
  context: BrowserContext,
  walk: Walk,
  credentials: { email: string; password: string },
  capture: (page: Page, visit: Visit, extra: CaptureExtra) => Promise<PageFacts | null>,
): Promise<{ found: boolean; reason: string | null }> {
  const signInPath = walk.spec.signIn as string;
  const page = await context.newPage();
  try {
    const route = routeOf(walk.spec, signInPath);
    await capture(page, { pattern: route?.pattern ?? signInPath, path: signInPath, route }, { loginStage: true });
    const form = page
      .locator("form")
      .filter({ has: page.locator("input[type=password]") })
      .first();
    await form.locator("input[name=email], input[type=email]").first().fill(credentials.email);
    await form.locator("input[type=password]").first().fill(credentials.password);
    await form.locator("button[type=submit], input[type=submit]").first().click();
    // In: the browser leaves the sign-in page. Refused: the form says why (its alert; not Next's route announcer,
    // also an alert, outside the page's main), or nothing happens.
    const alert = page.locator("main [role=alert], form [role=alert]").first();
    const outcome = await Promise.race([
      page.waitForURL((url) => url.pathname !== signInPath, { timeout: 20_000 }).then(() => "in" as const),
      alert.waitFor({ state: "visible", timeout: 20_000 }).then(() => "refused" as const),
    ]).catch(() => "timeout" as const);
    if (outcome === "in") return { found: true, reason: null };
    const said = outcome === "refused" ? await alert.textContent().catch(() => null) : null;
    return { found: false, reason: (said?.trim() || "the sign-in page did not let the account in").slice(0, 200) };
  } finally {
    await page.close();
  }
}

/**
 * The run's CSS and JS: each response read once per address, sent to the sink once per SHA-256 (in order: one at a
 * time), a stylesheet over the limit split at rule boundaries into `#part-N` parts, a script over it left out.
 */
class AssetCollector {
  private readonly byUrl = new Map<string, Promise<string[]>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly sink: RunSink,
    private readonly log: Log,
  ) {}

  take(response: Response, kind: "stylesheet" | "script"): Promise<string[]> {
    const url = response.url();
    if (response.status() < 200 || response.status() >= 300 || !/^https?:/.test(url)) return Promise.resolve([]);
    let shas = this.byUrl.get(url);
    if (!shas) {
      shas = response.body().then(
        (body) => this.send(url, kind === "stylesheet" ? "css" : "js", body),
        () => [],
      );
      this.byUrl.set(url, shas);
    }
    return shas;
  }

  private send(url: string, type: "css" | "js", body: Buffer): Promise<string[]> {
    const run = async (): Promise<string[]> => {
      if (body.length <= ASSET_LIMIT) {
        const sha = sha256(body);
        await this.sink.asset({ sha256: sha, type, url, bytes: body });
        return [sha];
      }
      if (type === "js") {
        this.log(`skipped script ${url}: ${body.length} bytes, over the asset limit of ${ASSET_LIMIT}`);
        return [];
      }
      const split = splitCss(body.toString("utf8"));
      for (const reason of split.skipped) this.log(`stylesheet ${url}: left out ${reason}`);
      const shas: string[] = [];
      for (const [index, part] of split.parts.entries()) {
        const bytes = Buffer.from(part, "utf8");
        const sha = sha256(bytes);
        await this.sink.asset({ sha256: sha, type, url: `${url}#part-${index + 1}`, bytes });
        shas.push(sha);
      }
      this.log(`split stylesheet ${url} (${body.length} bytes) into ${split.parts.length} parts`);
      return shas;
    };
    const result = this.queue.then(run);
    this.queue = result.catch(() => {});
    return result;
  }
}
