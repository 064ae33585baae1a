import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { type Logger, safeError } from "@shelf/server/log";
import type { ArtifactStore } from "@shelf/server/storage/store";
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { replayRun } from "../../design-gallery/replay";
import { DomainError, ValidationError } from "../../errors";
import type { CollectRunData, SubmitRunInput } from "./schemas";
import { type CollectAgent, readRun, refuseClosed, visibleTo } from "./service";

/*
 * A run's end into the gallery: submit freezes it and replays it, a replay that fails ends it failed, and a replay
 * cut off by a stopped process is resumed.
 */

const { collectRuns } = schema;

/** What a replay that failed without saying why leaves on the run. */
const REPLAY_FAILED = "the replay failed (the server logged why); the gallery is unchanged";

/** How long submit waits for its replay before answering with the run still `replaying` (the replay goes on). */
export const SUBMIT_WAIT_MS = 3000;

/**
 * `POST .../runs/{run}/submit`: freezes the run (submitted: it takes no more uploads), which frees the collection
 * lock, records what the collector reports (accounts found, build versions), then replays it into the gallery. The
 * answer is the run after its replay (`replayed` with what it added, changed and removed, or `failed` with the
 * replay's error) when the replay ends within `waitMs` (Infinity: whenever it ends); else the run `replaying`, which
 * its status then follows. A replay cut off by a stopped process is resumed by `resumeStaleReplays`.
 */
export async function submitRun(
  db: Database,
  store: ArtifactStore,
  agent: CollectAgent,
  input: SubmitRunInput,
  options: { log?: Logger; waitMs?: number } = {},
): Promise<CollectRunData> {
  const [frozen] = await db
    .update(collectRuns)
    .set({
      status: "submitted",
      submittedAt: sql`now()`,
      accounts: input.accounts?.map((account) => ({ found: account.found, reason: account.reason ?? null })) ?? null,
      buildVersions: input.build_versions ?? null,
    })
    .where(and(visibleTo(agent, input.run), eq(collectRuns.status, "open")))
    .returning({ id: collectRuns.id });
  if (!frozen) await refuseClosed(db, agent, input.run);
  const replay = settleReplay(db, store, input.run, options.log);
  const waitMs = options.waitMs ?? SUBMIT_WAIT_MS;
  // setTimeout would fire at once for Infinity (it takes at most 2^31 - 1 ms).
  if (waitMs === Number.POSITIVE_INFINITY) await replay;
  else {
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      replay,
      new Promise((resolve) => {
        waited = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(waited);
  }
  return readRun(db, agent, input.run);
}

/** Replays a submitted run; a failure ends the run `failed` with its reason (never thrown: it may run unawaited). */
async function settleReplay(db: Database, store: ArtifactStore, runId: number, log?: Logger): Promise<void> {
  try {
    await replayRun(db, runId, { store, log });
  } catch (error) {
    log?.error({ err: safeError(error), runId }, "collect run replay failed");
    const message = error instanceof DomainError || error instanceof ValidationError ? error.message : REPLAY_FAILED;
    // The replay may have recorded its own error already: that one is kept.
    await db
      .update(collectRuns)
      .set({
        status: "failed",
        error: sql`coalesce(${collectRuns.error}, ${message})`,
        finishedAt: sql`coalesce(${collectRuns.finishedAt}, now())`,
      })
      .where(and(eq(collectRuns.id, runId), inArray(collectRuns.status, ["submitted", "replaying"])))
      .catch((marking: unknown) => log?.error({ err: safeError(marking), runId }, "could not mark the run failed"));
  }
}

/**
 * Replays, oldest first, the runs submitted more than `staleSeconds` ago whose replay never ended (the process that
 * ran it stopped): a replay takes seconds, so such a run is orphaned. Replaying is safe to repeat (the run's rows are
 * undone and written again under the gallery's lock), so two instances resuming the same run only repeat work.
 */
export async function resumeStaleReplays(
  db: Database,
  store: ArtifactStore,
  options: { staleSeconds?: number; log?: Logger } = {},
): Promise<number[]> {
  const stale = await db
    .select({ id: collectRuns.id })
    .from(collectRuns)
    .where(
      and(
        inArray(collectRuns.status, ["submitted", "replaying"]),
        lte(collectRuns.submittedAt, sql`now() - make_interval(secs => ${options.staleSeconds ?? 600})`),
      ),
    )
    .orderBy(asc(collectRuns.id));
  for (const { id } of stale) {
    options.log?.warn({ runId: id }, "resuming a collect run's replay that never ended");
    await settleReplay(db, store, id, options.log);
  }
  return stale.map((run) => run.id);
}
