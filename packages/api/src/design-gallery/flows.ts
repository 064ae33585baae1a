import type { CollectLang, CollectViewport, GalleryFlowKind } from "@shelf/db/enums";
import type { CurrentFlow, CurrentScreen, PlannedFlow, PlannedScreen, Visit } from "./plan-types";
import { sha256, slugify } from "./screens";
import { compareText, pageKey } from "./visits";

/*
 * The flows a run declares (`meta.flow`) and walks (`meta.walk`), and which current flows they replace or remove
 * (plan.ts's header says the rules).
 */

export function planFlows(
  visits: readonly Visit[],
  currentFlows: readonly CurrentFlow[],
  screens: readonly PlannedScreen[],
  removedScreens: readonly number[],
  currentScreens: readonly CurrentScreen[],
) {
  const ok = visits.filter((visit) => visit.capture.outcome === "ok");
  const flows: PlannedFlow[] = [];

  // Declared flows: distinct (page, step) pairs, by step number then by first capture.
  const declared = new Map<string, { app: string; slug: string; names: string[]; steps: Map<string, StepDraft> }>();
  for (const visit of ok) {
    if (!visit.meta.flow) continue;
    const slug = slugify(visit.meta.flow);
    if (!slug) continue;
    const id = `${visit.app}\n${slug}`;
    const entry = declared.get(id) ?? { app: visit.app, slug, names: [] as string[], steps: new Map() };
    entry.names.push(visit.meta.flow.trim());
    const step = visit.meta.flow_step ?? null;
    const stepId = `${visit.page}\n${step ?? ""}`;
    const known = entry.steps.get(stepId);
    if (!known || visit.capture.id < known.first) {
      entry.steps.set(stepId, { page: visit.page, step, first: visit.capture.id });
    }
    declared.set(id, entry);
  }
  for (const { app, slug, names, steps } of declared.values()) {
    const ordered = [...steps.values()].sort(
      (a, b) => (a.step ?? Number.MAX_SAFE_INTEGER) - (b.step ?? Number.MAX_SAFE_INTEGER) || a.first - b.first,
    );
    const name = [...names].sort(compareText)[0] ?? slug;
    flows.push(flowOf(app, "declared", slug, name, null, ordered));
  }

  // Walks: the pages each app's walk reached in one signed-in state, viewport and language, in the order first reached.
  const walks = new Map<string, { app: string; key: WalkKey; steps: Map<string, StepDraft> }>();
  for (const visit of ok) {
    if (visit.meta.walk !== true) continue;
    const key = { auth: visit.key.auth, viewport: visit.key.viewport, lang: visit.key.lang };
    const id = `${visit.app}\n${walkSlug(key)}`;
    const entry = walks.get(id) ?? { app: visit.app, key, steps: new Map() };
    const known = entry.steps.get(visit.page);
    if (!known || visit.capture.id < known.first) {
      entry.steps.set(visit.page, { page: visit.page, step: null, first: visit.capture.id });
    }
    walks.set(id, entry);
  }
  for (const { app, key, steps } of walks.values()) {
    const ordered = [...steps.values()].sort((a, b) => a.first - b.first);
    flows.push(flowOf(app, "walk", walkSlug(key), null, key, ordered));
  }
  flows.sort((a, b) => compareText(a.appSlug, b.appSlug) || compareText(a.kind, b.kind) || compareText(a.slug, b.slug));

  // Which current flows are replaced, removed, or stay.
  const byKey = new Map(currentFlows.map((flow) => [`${flow.appSlug}\n${flow.kind}\n${flow.slug}`, flow]));
  const livePages = new Set<string>();
  const removedIds = new Set(removedScreens);
  for (const screen of currentScreens) {
    if (!removedIds.has(screen.id)) livePages.add(pageKey(screen.appSlug, screen.page));
  }
  for (const screen of screens) livePages.add(pageKey(screen.appSlug, screen.page));

  const touched = new Set<string>();
  let [added, changed] = [0, 0];
  for (const flow of flows) {
    const old = byKey.get(`${flow.appSlug}\n${flow.kind}\n${flow.slug}`);
    flow.replaces = old?.id ?? null;
    if (!old) added++;
    else if (old.contentSha256 !== flow.contentSha256) changed++;
    else continue;
    touched.add(flow.appSlug);
  }
  const planned = new Set(flows.map((flow) => `${flow.appSlug}\n${flow.kind}\n${flow.slug}`));
  const removed: number[] = [];
  for (const flow of currentFlows) {
    if (planned.has(`${flow.appSlug}\n${flow.kind}\n${flow.slug}`)) continue;
    if (!flow.pages.some((page) => livePages.has(pageKey(flow.appSlug, page)))) {
      removed.push(flow.id);
      touched.add(flow.appSlug);
    }
  }
  return { flows, removed: removed.sort((a, b) => a - b), added, changed, touched };
}

/** The state a walk was made in. */
export type WalkKey = { auth: boolean; viewport: CollectViewport; lang: CollectLang };

/** A walk's slug: its signed-in state, viewport and language (`signed-out-mobile-ko`). */
export const walkSlug = (key: WalkKey) => `${key.auth ? "signed-in" : "signed-out"}-${key.viewport}-${key.lang}`;

type StepDraft = { page: string; step: number | null; first: number };

function flowOf(
  appSlug: string,
  kind: GalleryFlowKind,
  slug: string,
  name: string | null,
  walk: WalkKey | null,
  steps: StepDraft[],
): PlannedFlow {
  const planned = steps.map(({ page, step }) => ({ page, flowStep: step }));
  return {
    appSlug,
    kind,
    slug,
    name,
    auth: walk?.auth ?? null,
    viewport: walk?.viewport ?? null,
    lang: walk?.lang ?? null,
    contentSha256: sha256({ name, steps: planned.map((step) => [step.page, step.flowStep]) }),
    steps: planned,
    replaces: null,
  };
}
