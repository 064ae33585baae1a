import type { Executor } from "@shelf/db";
import type { CollectLang, CollectViewport, ColorMode, GalleryFlowKind } from "@shelf/db/enums";
import { planReplay } from "./plan";
import type { Plan, VariantKey } from "./plan-types";
import { readCurrent, readVisits } from "./replay";
import { compareKeys, compareText, pageKey } from "./visits";

/*
 * What submitting an open run would do to the gallery as it is now: the replay's own plan (plan.ts), made without the
 * CSS and HTML it reads from the store, which decide only fonts, colors and search words. So it counts rows, not
 * whether what a visitor sees differs: a screen captured again looking the same is still one it would replace.
 */

/** The most retired variants a preview names one by one (`variants.retire` counts them all). */
const NAMED = 100;

export type ReplayPreview = {
  screens: { add: number; replace: number; retire: number };
  variants: { add: number; replace: number; retire: number };
  flows: {
    app: string;
    kind: GalleryFlowKind;
    slug: string;
    change: "add" | "replace" | "retire";
    steps_before: number | null;
    steps_after: number | null;
  }[];
  retired_variants: {
    screen_id: number;
    app: string;
    page: string;
    viewport: CollectViewport;
    lang: CollectLang;
    signed_in: boolean;
    mode: ColorMode | null;
  }[];
};

export async function previewReplay(db: Executor, runId: number): Promise<ReplayPreview> {
  const visits = await readVisits(db, runId);
  const pages = [...new Set(visits.map((visit) => visit.page))];
  const current = await readCurrent(db, [...new Set(visits.map((visit) => visit.app))], pages);
  const plan = planReplay({ runId, visits, current, styles: new Map(), texts: new Map() });
  return previewOf(plan, current);
}

type Current = Awaited<ReturnType<typeof readCurrent>>;

const stateOf = (variant: { viewport: string; lang: string; auth: boolean; mode?: string | null }) =>
  `${variant.viewport}|${variant.lang}|${variant.auth}|${variant.mode ?? ""}`;

function previewOf(plan: Plan, current: Current): ReplayPreview {
  const screensById = new Map(current.screens.map((screen) => [screen.id, screen]));
  const variants = { add: 0, replace: 0, retire: 0 };
  const retired: ReplayPreview["retired_variants"] = [];
  const retire = (screen: Current["screens"][number], kept: Set<string>) => {
    for (const variant of screen.variants) {
      if (kept.has(stateOf(variant))) continue;
      variants.retire++;
      retired.push({
        screen_id: screen.id,
        app: screen.appSlug,
        page: screen.page,
        viewport: variant.viewport,
        lang: variant.lang,
        signed_in: variant.auth,
        mode: variant.mode ?? null,
      });
    }
  };
  for (const screen of plan.screens) {
    const old = screen.replaces === null ? undefined : screensById.get(screen.replaces);
    const before = new Map((old?.variants ?? []).map((variant) => [stateOf(variant), variant.captureId]));
    for (const variant of screen.variants) {
      const was = before.get(stateOf(variant));
      if (was === undefined) variants.add++;
      else if (was !== variant.captureId) variants.replace++;
    }
    if (old) retire(old, new Set(screen.variants.map(stateOf)));
  }
  for (const id of plan.removedScreens) {
    const old = screensById.get(id);
    if (old) retire(old, new Set());
  }

  const flowsById = new Map(current.flows.map((flow) => [flow.id, flow]));
  const flows: ReplayPreview["flows"] = [];
  for (const flow of plan.flows) {
    const old = flow.replaces === null ? undefined : flowsById.get(flow.replaces);
    if (old?.contentSha256 === flow.contentSha256) continue;
    flows.push({
      app: flow.appSlug,
      kind: flow.kind,
      slug: flow.slug,
      change: old ? "replace" : "add",
      steps_before: old ? old.pages.length : null,
      steps_after: flow.steps.length,
    });
  }
  for (const id of plan.removedFlows) {
    const old = flowsById.get(id);
    if (!old) continue;
    const { appSlug: app, kind, slug } = old;
    flows.push({ app, kind, slug, change: "retire", steps_before: old.pages.length, steps_after: null });
  }

  retired.sort(
    (a, b) => compareText(pageKey(a.app, a.page), pageKey(b.app, b.page)) || compareKeys(keyOf(a), keyOf(b)),
  );
  return {
    screens: {
      add: plan.screens.filter((screen) => screen.replaces === null).length,
      replace: plan.screens.filter((screen) => screen.replaces !== null).length,
      retire: plan.removedScreens.length,
    },
    variants,
    flows,
    retired_variants: retired.slice(0, NAMED),
  };
}

const keyOf = (variant: ReplayPreview["retired_variants"][number]): VariantKey => ({
  viewport: variant.viewport,
  lang: variant.lang,
  auth: variant.signed_in,
  mode: variant.mode,
});
