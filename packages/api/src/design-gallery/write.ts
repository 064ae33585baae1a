import type { Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq, inArray, sql } from "drizzle-orm";
import type { Plan, TermUse } from "./plan-types";
import { compareText, pageKey } from "./visits";

/*
 * A replay's writes (replay.ts runs them in its transaction): taking back what an earlier replay of the same run
 * wrote, keeping its rows' ids, and writing a plan (plan.ts) into the gallery's rows with those ids.
 */

export type Kept = {
  apps: Map<string, number>;
  screens: Map<string, number>;
  variants: Map<string, number>;
  flows: Map<string, number>;
};

const variantId = (
  app: string,
  page: string,
  v: { viewport: string; lang: string; auth: boolean; mode: string | null },
) => `${pageKey(app, page)}\n${v.viewport}|${v.lang}|${v.auth ? 1 : 0}|${v.mode ?? ""}`;
const flowId = (app: string, kind: string, slug: string) => `${app}\n${kind}\n${slug}`;

/** Takes back what an earlier replay of this run did, remembering its rows' ids to give them again. */
export async function undo(tx: Executor, runId: number): Promise<Kept> {
  const { galleryApps: a, galleryScreens: s, galleryScreenVariants: v, galleryFlows: f } = schema;
  const screens = await tx
    .select({ id: s.id, app: a.slug, page: s.page })
    .from(s)
    .innerJoin(a, eq(a.id, s.appId))
    .where(eq(s.runId, runId));
  const variants = await tx
    .select({ id: v.id, app: a.slug, page: s.page, viewport: v.viewport, lang: v.lang, auth: v.auth, mode: v.mode })
    .from(v)
    .innerJoin(s, eq(s.id, v.screenId))
    .innerJoin(a, eq(a.id, s.appId))
    .where(eq(s.runId, runId));
  const flows = await tx
    .select({ id: f.id, app: a.slug, kind: f.kind, slug: f.slug })
    .from(f)
    .innerJoin(a, eq(a.id, f.appId))
    .where(eq(f.runId, runId));
  const apps = await tx.select({ id: a.id, slug: a.slug }).from(a).where(eq(a.firstRunId, runId));

  await tx.delete(f).where(eq(f.runId, runId));
  await tx.delete(s).where(eq(s.runId, runId));
  const revived = { status: "current", replacedById: null, retiredByRunId: null } as const;
  await tx.update(s).set(revived).where(eq(s.retiredByRunId, runId));
  await tx.update(f).set(revived).where(eq(f.retiredByRunId, runId));
  await tx.delete(a).where(eq(a.firstRunId, runId));

  return {
    apps: new Map(apps.map((row) => [row.slug, row.id])),
    screens: new Map(screens.map((row) => [pageKey(row.app, row.page), row.id])),
    variants: new Map(variants.map((row) => [variantId(row.app, row.page, row), row.id])),
    flows: new Map(flows.map((row) => [flowId(row.app, row.kind, row.slug), row.id])),
  };
}

/** Rows per statement: well under PostgreSQL's 65535 parameters for the widest table (18 columns). */
const CHUNK = 1000;

async function inChunks<T, R>(rows: T[], work: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let start = 0; start < rows.length; start += CHUNK) out.push(...(await work(rows.slice(start, start + CHUNK))));
  return out;
}
/** Writes the plan: apps, terms, screens with their variants and terms, flows with their steps, the apps' terms. */
export async function write(tx: Executor, runId: number, plan: Plan, kept: Kept, existingApps: Map<string, number>) {
  const { galleryAppTerms: at } = schema;
  const appIds = await writeApps(tx, runId, plan.apps, kept, existingApps);
  const appId = (slug: string) => {
    const id = appIds.get(slug);
    if (id === undefined) throw new Error(`No gallery app ${slug}.`);
    return id;
  };

  const termId = await writeTerms(tx, plan);
  const slugOfApp = new Map([...appIds].map(([slug, id]) => [id, slug]));
  const screenIds = await writeScreens(tx, runId, plan, kept, { appId, slugOfApp, termId });
  await writeFlows(tx, runId, plan, kept, { appId, slugOfApp, screenIds });

  // Each app this run captured takes this run's fonts and colors.
  const captured = plan.apps.map((app) => appId(app.slug));
  if (captured.length > 0) await tx.delete(at).where(inArray(at.appId, captured));
  const appLinks = plan.apps.flatMap((app) =>
    app.terms.map((term) => ({ appId: appId(app.slug), termId: termId(term), uses: term.uses })),
  );
  await inChunks(appLinks, (chunk) => tx.insert(at).values(chunk).returning({ appId: at.appId }));
}

/** The ids a step of the writing finds its rows' references by. */
type WrittenIds = {
  appId: (slug: string) => number;
  slugOfApp: Map<number, string>;
};

/** Apps: new ones inserted, the others pointed at this run. The id of each app the plan names, by slug. */
async function writeApps(
  tx: Executor,
  runId: number,
  apps: Plan["apps"],
  kept: Kept,
  existingApps: Map<string, number>,
): Promise<Map<string, number>> {
  const { galleryApps: a } = schema;
  const appIds = new Map(existingApps);
  for (const app of apps) {
    const existing = existingApps.get(app.slug);
    if (existing !== undefined) {
      await tx.update(a).set({ origin: app.origin, lastRunId: runId }).where(eq(a.id, existing));
    } else {
      const [row] = await tx
        .insert(a)
        .values({
          id: kept.apps.get(app.slug),
          slug: app.slug,
          origin: app.origin,
          firstRunId: runId,
          lastRunId: runId,
        })
        .returning({ id: a.id });
      if (row) appIds.set(app.slug, row.id);
    }
  }
  return appIds;
}

/** Terms: the vocabulary only grows; a term's label is the one it was first stored with. Each term's id, by term. */
async function writeTerms(tx: Executor, plan: Plan): Promise<(term: TermUse) => number> {
  const { galleryTerms: t } = schema;
  const wanted = new Map<string, TermUse>();
  for (const term of [...plan.screens.flatMap((screen) => screen.terms), ...plan.apps.flatMap((app) => app.terms)]) {
    const key = `${term.kind}:${term.slug}`;
    const known = wanted.get(key);
    if (!known || compareText(term.label, known.label) < 0) wanted.set(key, term);
  }
  const terms = [...wanted.values()].sort((x, y) => compareText(x.kind, y.kind) || compareText(x.slug, y.slug));
  await inChunks(terms, (chunk) =>
    tx
      .insert(t)
      .values(chunk.map(({ kind, slug, label, generic }) => ({ kind, slug, label, generic })))
      .onConflictDoNothing()
      .returning({ id: t.id }),
  );
  const termIds = new Map<string, number>();
  const slugs = [...new Set(terms.map((term) => term.slug))];
  for (const row of await inChunks(slugs, (chunk) =>
    tx.select({ id: t.id, kind: t.kind, slug: t.slug }).from(t).where(inArray(t.slug, chunk)),
  )) {
    termIds.set(`${row.kind}:${row.slug}`, row.id);
  }
  const termId = (term: TermUse) => {
    const id = termIds.get(`${term.kind}:${term.slug}`);
    if (id === undefined) throw new Error(`No gallery term ${term.kind}:${term.slug}.`);
    return id;
  };

  return termId;
}

/**
 * Screens: retire what is replaced or removed, insert this run's, then point the replaced at their replacements; then
 * their variants and terms. Each new screen's id, by page key.
 */
async function writeScreens(
  tx: Executor,
  runId: number,
  plan: Plan,
  kept: Kept,
  { appId, slugOfApp, termId }: WrittenIds & { termId: (term: TermUse) => number },
): Promise<Map<string, number>> {
  const { galleryScreens: s, galleryScreenVariants: v, galleryScreenTerms: st } = schema;
  const replaced = plan.screens.flatMap((screen) => (screen.replaces === null ? [] : [screen.replaces]));
  if (replaced.length > 0) {
    await inChunks(replaced, (chunk) =>
      tx
        .update(s)
        .set({ status: "replaced", retiredByRunId: runId })
        .where(inArray(s.id, chunk))
        .returning({ id: s.id }),
    );
  }
  if (plan.removedScreens.length > 0) {
    await inChunks(plan.removedScreens, (chunk) =>
      tx
        .update(s)
        .set({ status: "removed", retiredByRunId: runId })
        .where(inArray(s.id, chunk))
        .returning({ id: s.id }),
    );
  }
  const screenRows = await inChunks(plan.screens, (chunk) =>
    tx
      .insert(s)
      .values(
        chunk.map((screen) => ({
          id: kept.screens.get(pageKey(screen.appSlug, screen.page)),
          appId: appId(screen.appSlug),
          runId,
          page: screen.page,
          title: screen.title,
          pageType: screen.pageType,
          capturedAt: screen.capturedAt,
          contentSha256: screen.contentSha256,
          searchText: screen.searchText,
          searchGrams: screen.searchGrams,
          variantMask: screen.variantMask,
        })),
      )
      .returning({ id: s.id, appId: s.appId, page: s.page }),
  );
  const screenIds = new Map(screenRows.map((row) => [pageKey(slugOfApp.get(row.appId) ?? "", row.page), row.id]));
  await tx.execute(sql`
    update gallery_screens as older set replaced_by_id = newer.id
    from gallery_screens as newer
    where newer.run_id = ${runId} and older.retired_by_run_id = ${runId} and older.status = 'replaced'
      and newer.app_id = older.app_id and newer.page = older.page`);

  const variants = plan.screens.flatMap((screen) =>
    screen.variants.map((variant) => {
      const screenId = screenIds.get(pageKey(screen.appSlug, screen.page)) ?? 0;
      const key = variantId(screen.appSlug, screen.page, { ...variant, mode: variant.mode ?? null });
      return { ...variant, id: kept.variants.get(key), screenId };
    }),
  );
  await inChunks(variants, (chunk) => tx.insert(v).values(chunk).returning({ id: v.id }));
  const links = plan.screens.flatMap((screen) => {
    const screenId = screenIds.get(pageKey(screen.appSlug, screen.page)) ?? 0;
    return screen.terms.map((term) => ({ screenId, termId: termId(term), uses: term.uses }));
  });
  await inChunks(links, (chunk) => tx.insert(st).values(chunk).returning({ screenId: st.screenId }));

  return screenIds;
}

/** Flows, the way screens are written; their steps name this run's screens. */
async function writeFlows(
  tx: Executor,
  runId: number,
  plan: Plan,
  kept: Kept,
  { appId, slugOfApp, screenIds }: WrittenIds & { screenIds: Map<string, number> },
): Promise<void> {
  const { galleryFlows: f, galleryFlowSteps: fs } = schema;
  const replacedFlows = plan.flows.flatMap((flow) => (flow.replaces === null ? [] : [flow.replaces]));
  if (replacedFlows.length > 0) {
    await tx.update(f).set({ status: "replaced", retiredByRunId: runId }).where(inArray(f.id, replacedFlows));
  }
  if (plan.removedFlows.length > 0) {
    await tx.update(f).set({ status: "removed", retiredByRunId: runId }).where(inArray(f.id, plan.removedFlows));
  }
  const flowRows = await inChunks(plan.flows, (chunk) =>
    tx
      .insert(f)
      .values(
        chunk.map((flow) => ({
          id: kept.flows.get(flowId(flow.appSlug, flow.kind, flow.slug)),
          appId: appId(flow.appSlug),
          runId,
          kind: flow.kind,
          slug: flow.slug,
          name: flow.name,
          auth: flow.auth,
          viewport: flow.viewport,
          lang: flow.lang,
          contentSha256: flow.contentSha256,
        })),
      )
      .returning({ id: f.id, appId: f.appId, kind: f.kind, slug: f.slug }),
  );
  const flowIds = new Map(flowRows.map((row) => [flowId(slugOfApp.get(row.appId) ?? "", row.kind, row.slug), row.id]));
  await tx.execute(sql`
    update gallery_flows as older set replaced_by_id = newer.id
    from gallery_flows as newer
    where newer.run_id = ${runId} and older.retired_by_run_id = ${runId} and older.status = 'replaced'
      and newer.app_id = older.app_id and newer.kind = older.kind and newer.slug = older.slug`);
  const steps = plan.flows.flatMap((flow) =>
    flow.steps.map((step, position) => {
      const screenId = screenIds.get(pageKey(flow.appSlug, step.page));
      const id = flowIds.get(flowId(flow.appSlug, flow.kind, flow.slug));
      if (screenId === undefined || id === undefined) throw new Error(`No screen of ${flow.appSlug} ${step.page}.`);
      return { flowId: id, position: position + 1, screenId, flowStep: step.flowStep };
    }),
  );
  await inChunks(steps, (chunk) => tx.insert(fs).values(chunk).returning({ flowId: fs.flowId }));
}
