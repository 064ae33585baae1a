import type { Database, Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import type { ReplaySummary } from "@shelf/db/schema";
import type { Logger } from "@shelf/server/log";
import { type ArtifactStore, MissingObjectError } from "@shelf/server/storage/store";
import { and, asc, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import { planReplay } from "./plan";
import type { CaptureRow, CurrentFlow, CurrentScreen, Visit } from "./plan-types";
import { refreshGalleryCounts } from "./query/counts";
import { visibleText } from "./search";
import { analyseStyles, type ParsedSheet, parseSheet, type StyleFacts } from "./styles";
import { chooseVariants, compareText, gonePages, pageKey, readVisit } from "./visits";
import { undo, write } from "./write";

/*
 * Replaying a collect run: its captures become the gallery's apps, screens, variants, flows and taxonomy (plan.ts
 * says what each becomes, write.ts writes it; the schema in packages/db/src/schema/gallery.ts says how the gallery is
 * read).
 *
 * replayRun sets the run `replaying`, reads the CSS its screens' captures named from the artifact store (before any
 * transaction: the run is frozen), then in ONE transaction writes the gallery rows, recounts the unfiltered facets
 * (gallery_counts) and sets the run `replayed` with the summary. Replays take one advisory lock, so they happen one at a time.
 *
 * On failure it THROWS a ReplayError (it never returns a failure): for `superseded` and `failed` the transaction was
 * rolled back (the gallery is exactly as before) and the run is now `failed` with `error` saying why (a message for
 * the collector: a missing CSS object names its asset's URL; an internal error says only that); for `not_found` and
 * `not_replayable` the run was not touched.
 *
 * Replaying a run again is allowed while no newer run has been replayed: it first undoes the run (its rows removed,
 * what it retired current again), then replays it as the first time, its rows keeping their ids (by app slug, page,
 * variant state, flow kind and slug). The same run replayed twice gives identical gallery rows and the same summary.
 * A run older than the newest replayed one is refused (`superseded`): replaying it would go back in time.
 */

export type ReplayErrorCode = "not_found" | "not_replayable" | "superseded" | "failed";

export class ReplayError extends Error {
  readonly code: ReplayErrorCode;
  readonly runId: number;

  constructor(code: ReplayErrorCode, message: string, runId: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ReplayError";
    this.code = code;
    this.runId = runId;
  }
}

/** A failure the collector can act on: its message goes on the run as is. */
class ReplayInputError extends Error {
  constructor(
    readonly code: "superseded" | "failed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ReplayInputError";
  }
}

/** The advisory lock a replay holds for its transaction ("glry"). */
export const GALLERY_LOCK = 0x676c_7279;

const INTERNAL = "The replay failed on an internal error; the gallery is unchanged.";

export type ReplayOptions = { store: ArtifactStore; log?: Logger };

export async function replayRun(db: Database, runId: number, { store, log }: ReplayOptions): Promise<ReplaySummary> {
  const { collectRuns } = schema;
  const [claimed] = await db
    .update(collectRuns)
    .set({ status: "replaying" })
    .where(
      and(
        eq(collectRuns.id, runId),
        isNotNull(collectRuns.submittedAt),
        inArray(collectRuns.status, ["submitted", "replaying", "replayed", "failed"]),
      ),
    )
    .returning({ id: collectRuns.id });
  if (!claimed) {
    const [run] = await db.select({ status: collectRuns.status }).from(collectRuns).where(eq(collectRuns.id, runId));
    if (!run) throw new ReplayError("not_found", `There is no collect run ${runId}.`, runId);
    throw new ReplayError("not_replayable", `Collect run ${runId} was never submitted (it is ${run.status}).`, runId);
  }

  try {
    const visits = await readVisits(db, runId);
    const styles = await readStyles(db, store, runId, visits);
    const texts = new Map<number, string>();
    const chosen = [...chooseVariants(visits).values()].flatMap((page) => page.chosen.map((visit) => visit.capture));
    await readTexts(store, chosen, texts, log);

    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${GALLERY_LOCK})`);
      await assertNewest(tx, runId);
      const kept = await undo(tx, runId);
      const current = await readCurrent(tx, [...new Set(visits.map((visit) => visit.app))]);
      const carried = touchedScreens(visits, current.screens).flatMap((screen) => screen.variants);
      await readTexts(
        store,
        carried.map((variant) => ({ id: variant.captureId, htmlKey: variant.htmlKey ?? null })),
        texts,
        log,
      );
      const plan = planReplay({ runId, visits, current, styles, texts });
      await write(tx, runId, plan, kept, current.appIds);
      await refreshGalleryCounts(tx);
      await tx
        .update(collectRuns)
        .set({ status: "replayed", replay: plan.summary, error: null, finishedAt: sql`now()` })
        .where(eq(collectRuns.id, runId));
      return plan;
    });
    log?.info({ runId, summary: plan.summary, skipped: plan.skipped }, "collect run replayed");
    return plan.summary;
  } catch (error) {
    const known = error instanceof ReplayInputError ? error : null;
    const message = known?.message ?? INTERNAL;
    log?.error({ err: error, runId }, "collect run replay failed");
    try {
      await db
        .update(collectRuns)
        .set({ status: "failed", error: message, finishedAt: sql`now()` })
        .where(eq(collectRuns.id, runId));
    } catch (marking) {
      // The run stays `replaying`, which a later replay may claim; the gallery is unchanged either way.
      log?.error({ err: marking, runId }, "could not mark the collect run failed");
    }
    throw new ReplayError(known?.code ?? "failed", message, runId, { cause: error });
  }
}

/** The run's captures as visits, in upload order. */
export async function readVisits(db: Executor, runId: number): Promise<Visit[]> {
  const captures = await db
    .select()
    .from(schema.collectCaptures)
    .where(eq(schema.collectCaptures.runId, runId))
    .orderBy(asc(schema.collectCaptures.id));
  return captures.map(readVisit);
}

/** The current screens a replay of these visits makes anew: the pages it visited `ok` or found gone. */
export function touchedScreens(visits: readonly Visit[], screens: readonly CurrentScreen[]): CurrentScreen[] {
  const pages = new Set([...chooseVariants(visits).keys(), ...gonePages(visits).keys()]);
  return screens.filter((screen) => pages.has(pageKey(screen.appSlug, screen.page)));
}

/** Fonts and colors of each page's chosen captures, from the run's CSS assets they named. */
async function readStyles(db: Database, store: ArtifactStore, runId: number, visits: Visit[]) {
  const assets = await db
    .select()
    .from(schema.collectAssets)
    .where(eq(schema.collectAssets.runId, runId))
    .orderBy(asc(schema.collectAssets.sha256));
  const bySha = new Map(assets.map((asset) => [asset.sha256, asset]));
  const sheets = new Map<string, ParsedSheet>();
  const analyses = new Map<string, StyleFacts>();

  const cssOf = (capture: CaptureRow) =>
    capture.assets.filter((sha) => {
      const asset = bySha.get(sha);
      if (!asset)
        throw new ReplayInputError("failed", `The capture ${capture.key} names an asset the run does not have.`);
      return asset.type === "css";
    });
  const analyse = async (shas: Iterable<string>) => {
    const list = [...new Set(shas)].sort(compareText);
    const id = list.join(",");
    const known = analyses.get(id);
    if (known) return known;
    const parsed: ParsedSheet[] = [];
    for (const sha of list) {
      let sheet = sheets.get(sha);
      if (!sheet) {
        const asset = bySha.get(sha);
        if (!asset) throw new ReplayInputError("failed", "A capture names an asset the run does not have.");
        sheet = parseSheet(await readText(store, asset.objectKey, asset.url));
        sheets.set(sha, sheet);
      }
      parsed.push(sheet);
    }
    const facts = analyseStyles(parsed);
    analyses.set(id, facts);
    return facts;
  };

  const pages = new Map<string, StyleFacts>();
  for (const [id, { chosen }] of chooseVariants(visits)) {
    pages.set(id, await analyse(chosen.flatMap((visit) => cssOf(visit.capture))));
  }
  return pages;
}

async function readText(store: ArtifactStore, key: string, url: string): Promise<string> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await store.open(key)) chunks.push(Buffer.from(chunk));
    return new TextDecoder("utf-8").decode(Buffer.concat(chunks));
  } catch (error) {
    if (error instanceof MissingObjectError) {
      throw new ReplayInputError("failed", `The CSS asset ${url} has no bytes in the artifact store.`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * The visible text of each capture's HTML not read yet, into `texts` by capture id. HTML missing from the store only
 * leaves its words out of the search (it is logged): unlike CSS, which decides the screen's fonts and colors, it
 * changes nothing a visitor sees.
 */
async function readTexts(
  store: ArtifactStore,
  captures: readonly { id: number; htmlKey: string | null }[],
  texts: Map<number, string>,
  log: Logger | undefined,
) {
  for (const { id, htmlKey } of captures) {
    if (htmlKey === null || texts.has(id)) continue;
    try {
      texts.set(id, visibleText(await readText(store, htmlKey, htmlKey)));
    } catch (error) {
      const missing = error instanceof ReplayInputError && error.cause instanceof MissingObjectError;
      if (!missing) throw error;
      log?.warn({ captureId: id, key: htmlKey }, "a capture's HTML is missing from the store: not searched");
      texts.set(id, "");
    }
  }
}

/** Refuses a run older than what the gallery already holds from a newer one. */
async function assertNewest(tx: Executor, runId: number) {
  const { galleryScreens: s, galleryFlows: f, galleryApps: a } = schema;
  const [row] = await tx.execute<{ newest: number | null }>(sql`
    select greatest(
      (select max(${s.runId}) from ${s}), (select max(${s.retiredByRunId}) from ${s}),
      (select max(${f.runId}) from ${f}), (select max(${f.retiredByRunId}) from ${f}),
      (select max(${a.lastRunId}) from ${a})
    ) as newest`);
  const newest = row?.newest === null || row?.newest === undefined ? null : Number(row.newest);
  if (newest !== null && newest > runId) {
    throw new ReplayInputError("superseded", `A newer collect run (${newest}) has been replayed since this one.`);
  }
}

/**
 * The current screens and flows of the apps the run captured. With `pages`, only the screens of those pages and of
 * the current flows' pages (all a preview needs: it reports no fonts or colors of apps).
 */
export async function readCurrent(tx: Executor, appSlugs: string[], pages?: string[]) {
  const {
    galleryApps: a,
    galleryScreens: s,
    galleryScreenVariants: v,
    galleryScreenTerms: st,
    galleryTerms: t,
    galleryFlows: f,
    galleryFlowSteps: fs,
    collectCaptures: c,
  } = schema;
  const apps = appSlugs.length === 0 ? [] : await tx.select().from(a).where(inArray(a.slug, appSlugs));
  const appIds = new Map(apps.map((app) => [app.slug, app.id]));
  const slugOf = new Map(apps.map((app) => [app.id, app.slug]));
  const ids = [...slugOf.keys()];
  if (ids.length === 0) {
    return { screens: [], flows: [], appSlugs: new Set<string>(), appIds };
  }
  // Written out in full: drizzle would name the outer table's column bare, which the subquery binds to its own flows.
  const flowPages = sql`(
    select recorded.page from gallery_flow_steps steps
    join gallery_flows flow on flow.id = steps.flow_id
    join gallery_screens recorded on recorded.id = steps.screen_id
    where flow.app_id = ${sql.raw('"gallery_screens"."app_id"')} and flow.status = 'current')`;
  const isCurrentIn = and(
    inArray(s.appId, ids),
    eq(s.status, "current"),
    pages && or(pages.length > 0 ? inArray(s.page, pages) : undefined, sql`${s.page} in ${flowPages}`),
  );

  const screenRows = await tx
    .select({ id: s.id, appId: s.appId, page: s.page, contentSha256: s.contentSha256 })
    .from(s)
    .where(isCurrentIn)
    .orderBy(asc(s.id));
  const variantRows = await tx
    .select({ screenId: v.screenId, variant: v, meta: c.meta })
    .from(v)
    .innerJoin(s, eq(s.id, v.screenId))
    .innerJoin(c, eq(c.id, v.captureId))
    .where(isCurrentIn)
    .orderBy(asc(v.id));
  const termRows = await tx
    .select({ screenId: st.screenId, kind: t.kind, slug: t.slug, label: t.label, generic: t.generic, uses: st.uses })
    .from(st)
    .innerJoin(s, eq(s.id, st.screenId))
    .innerJoin(t, eq(t.id, st.termId))
    .where(and(isCurrentIn, inArray(t.kind, ["font", "color"])));

  const screens = new Map<number, CurrentScreen>();
  for (const row of screenRows) {
    screens.set(row.id, {
      id: row.id,
      appSlug: slugOf.get(row.appId) ?? "",
      page: row.page,
      contentSha256: row.contentSha256,
      variants: [],
      styleTerms: [],
    });
  }
  for (const { screenId, variant, meta } of variantRows) {
    const { id: _id, screenId: _screen, ...fields } = variant;
    screens.get(screenId)?.variants.push({ ...fields, meta });
  }
  for (const { screenId, ...term } of termRows) screens.get(screenId)?.styleTerms.push(term);

  const flowRows = await tx
    .select({ id: f.id, appId: f.appId, kind: f.kind, slug: f.slug, contentSha256: f.contentSha256 })
    .from(f)
    .where(and(inArray(f.appId, ids), eq(f.status, "current")))
    .orderBy(asc(f.id));
  const stepRows = await tx
    .select({ flowId: fs.flowId, page: s.page })
    .from(fs)
    .innerJoin(f, eq(f.id, fs.flowId))
    .innerJoin(s, eq(s.id, fs.screenId))
    .where(and(inArray(f.appId, ids), eq(f.status, "current")))
    .orderBy(asc(fs.flowId), asc(fs.position));
  const flows = new Map<number, CurrentFlow>();
  for (const row of flowRows) {
    flows.set(row.id, { ...row, appSlug: slugOf.get(row.appId) ?? "", pages: [] });
  }
  for (const row of stepRows) flows.get(row.flowId)?.pages.push(row.page);

  return { screens: [...screens.values()], flows: [...flows.values()], appSlugs: new Set(appIds.keys()), appIds };
}
