import { type Database, schema } from "@shelf/db";
import type { ReplaySummary } from "@shelf/db/schema";
import { eq, sql } from "drizzle-orm";
import type { Logger } from "../log";
import type { ArtifactStore } from "../storage/store";

// PLACEHOLDER on the `collect` branch, replaced at the merge by the real replay (branch `replay`): it only marks the
// run replayed with an all-zero summary, so that submitting a run works end to end before the gallery exists.

export type ReplayOptions = { store: ArtifactStore; log?: Logger };

const NOTHING = { apps: 0, screens: 0, flows: 0 };

/** Replays a submitted collect run into the gallery and records what it did on the run (`replay`). */
export async function replayRun(db: Database, runId: number, _options: ReplayOptions): Promise<ReplaySummary> {
  const summary: ReplaySummary = { added: { ...NOTHING }, changed: { ...NOTHING }, removed: { ...NOTHING } };
  await db
    .update(schema.collectRuns)
    .set({ status: "replayed", replay: summary, finishedAt: sql`now()` })
    .where(eq(schema.collectRuns.id, runId));
  return summary;
}
