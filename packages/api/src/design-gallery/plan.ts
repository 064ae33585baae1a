import { planFlows } from "./flows";
import { originOf } from "./pages";
import type { CurrentFlow, CurrentScreen, Plan, PlannedScreen, VisibleTexts, Visit } from "./plan-types";
import { appStyleTerms, screenOf, styleTerms, variantKey, variantOf } from "./screens";
import type { StyleFacts } from "./styles";
import { chooseVariants, compareText, gonePages, keyText, pageKey, readMeta, stateText } from "./visits";

/*
 * What a replay does to the gallery, decided without the database: the run's captures and the gallery's current rows
 * of the apps it captured go in, the rows to write and to retire come out (replay.ts reads them, write.ts writes them).
 * Its steps: visits.ts (the captures as visits), screens.ts (a screen's variants, terms and search columns), flows.ts;
 * plan-types.ts holds what they share.
 *
 * A run changes only what it captured; a partial run (one page, one viewport) is as safe as a full one.
 *
 * - A capture is a visit of (app, page) in one state: viewport, language, signed-in, mode (pages.ts derives app and
 *   page when `meta` does not give them). Only `ok` visits become variants; `redirected` ones (the image of a redirect
 *   shows the page it landed on, not the one asked for) never do. When one state of a page was captured twice, the
 *   later capture is the variant.
 * - For each page the run visited `ok`, the run makes a screen: its own variants, plus every variant of the current
 *   screen in a state the run did not capture this page in (carried, pointing at their older captures). The current
 *   screen is replaced by it. Other pages' screens are untouched.
 * - A page is gone from a viewport, language and signed-in state when the run's visit of it there `failed` with HTTP
 *   404 or 410 and the run has no `ok` visit of it there: its variants in that state (every mode: a status does not
 *   depend on the color scheme) are retired. A screen that keeps some variants is replaced by a screen of the rest; one
 *   that keeps none is removed. Any other failure, and a redirect, changes nothing.
 * - Walks: the pages of an app the run reached in one signed-in state, viewport and language, in the order first
 *   reached, from its `ok` captures whose `meta.walk` is true (slug `signed-out-desktop-en`, ...). A run's walk replaces
 *   the current walk of the same app and state only; a run that did not walk there (captures without `meta.walk`, or
 *   walks in other states) leaves it as it is.
 * - Declared flows: a flow per app and `meta.flow` (steps ordered by `flow_step`, then by capture order; pages without
 *   a step number follow the numbered ones). A run that declares a flow declares it whole: it replaces the current
 *   flow of the same app and slug. Flows the run did not declare stay. Any current flow of which no page has a current
 *   screen left is removed.
 * - Apps: an app's fonts and colors are those of its current screens (each term's largest use on any of them), so a
 *   run that captured a few pages changes only what those pages bring.
 * - Search: a screen's words (app, page, titles, the visible text of its variants' HTML, meta terms) and their
 *   pieces, as search.ts makes them; the visible text is read from the store by the replay (`texts`).
 * - Summary: a replaced screen or flow counts as changed only when what a visitor sees differs (content_sha256);
 *   an app is added when it is new and changed when any of its screens or flows was added, changed or removed. Apps
 *   are never removed.
 */

export type PlanInput = {
  runId: number;
  visits: Visit[];
  /** Current screens and flows of the apps the run has `ok` visits of. */
  current: { screens: CurrentScreen[]; flows: CurrentFlow[]; appSlugs: Set<string> };
  /** Fonts and colors of each page's chosen captures' CSS (by pageKey). */
  styles: Map<string, StyleFacts>;
  /** The visible text of the HTML of every capture a screen may show: the run's own and the carried ones. */
  texts: VisibleTexts;
};

export function planReplay({ visits, current, styles, texts }: PlanInput): Plan {
  const pages = chooseVariants(visits);
  const gone = gonePages(visits);
  const currentByPage = new Map(current.screens.map((screen) => [pageKey(screen.appSlug, screen.page), screen]));

  const screens: PlannedScreen[] = [];
  const removedScreens: number[] = [];
  const touched = new Set<string>();
  let [added, changed, removed] = [0, 0, 0];

  /** The current screen's variants this run keeps: those it neither captured again nor found gone. */
  const carried = (screen: CurrentScreen, own: Set<string>) => {
    const goneFrom = gone.get(pageKey(screen.appSlug, screen.page))?.states;
    return screen.variants.filter((variant) => {
      const key = variantKey(variant);
      return !own.has(keyText(key)) && !goneFrom?.has(stateText(key));
    });
  };

  for (const [id, { app, page, chosen }] of pages) {
    const old = currentByPage.get(id);
    const own = new Set(chosen.map((visit) => keyText(visit.key)));
    const kept = old ? carried(old, own) : [];
    const screen = screenOf(
      app,
      page,
      [...chosen.map(variantOf), ...kept.map(({ meta: _meta, ...variant }) => variant)],
      [...chosen.map((visit) => visit.meta), ...kept.map((variant) => readMeta(variant.meta))],
      styleTerms(styles.get(id)),
      old?.id ?? null,
      texts,
    );
    screens.push(screen);
    if (!old) added++;
    else if (old.contentSha256 !== screen.contentSha256) changed++;
    else continue;
    touched.add(app);
  }

  for (const old of current.screens) {
    const id = pageKey(old.appSlug, old.page);
    if (pages.has(id) || !gone.has(id)) continue;
    const kept = carried(old, new Set());
    if (kept.length === old.variants.length) continue;
    touched.add(old.appSlug);
    if (kept.length === 0) {
      removedScreens.push(old.id);
      removed++;
      continue;
    }
    const screen = screenOf(
      old.appSlug,
      old.page,
      kept.map(({ meta: _meta, ...variant }) => variant),
      kept.map((variant) => readMeta(variant.meta)),
      old.styleTerms.map((term) => ({ ...term })),
      old.id,
      texts,
    );
    screens.push(screen);
    if (old.contentSha256 !== screen.contentSha256) changed++;
  }
  screens.sort((a, b) => compareText(a.appSlug, b.appSlug) || compareText(a.page, b.page));

  const flowPlan = planFlows(visits, current.flows, screens, removedScreens, current.screens);
  for (const app of flowPlan.touched) touched.add(app);

  // The apps it made screens of, and those it found pages gone from (an app it only found gone in is not made).
  const goneFrom = [...gone.values()].map(({ app }) => app).filter((app) => current.appSlugs.has(app));
  const appSlugs = [...new Set([...[...pages.values()].map(({ app }) => app), ...goneFrom])];
  const apps = appSlugs.sort(compareText).map((slug) => {
    const first =
      visits.find((visit) => visit.app === slug && visit.capture.outcome === "ok") ??
      visits.find((visit) => visit.app === slug);
    return {
      slug,
      origin: originOf(first?.capture.url ?? ""),
      terms: appStyleTerms(slug, screens, removedScreens, current.screens),
    };
  });
  const newApps = apps.filter((app) => !current.appSlugs.has(app.slug)).length;
  const changedApps = [...touched].filter((app) => current.appSlugs.has(app)).length;

  return {
    apps,
    screens,
    removedScreens: removedScreens.sort((a, b) => a - b),
    flows: flowPlan.flows,
    removedFlows: flowPlan.removed,
    summary: {
      added: { apps: newApps, screens: added, flows: flowPlan.added },
      changed: { apps: changedApps, screens: changed, flows: flowPlan.changed },
      removed: { apps: 0, screens: removed, flows: flowPlan.removed.length },
    },
    skipped: {
      failed: visits.filter((visit) => visit.capture.outcome === "failed").length,
      redirected: visits.filter((visit) => visit.capture.outcome === "redirected").length,
      repeated:
        visits.filter((visit) => visit.capture.outcome === "ok").length -
        [...pages.values()].reduce((sum, entry) => sum + entry.chosen.length, 0),
    },
  };
}
