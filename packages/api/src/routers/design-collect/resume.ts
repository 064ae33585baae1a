import type { Database } from "@shelf/db";
import type { Logger } from "@shelf/server/log";
import { type Periodic, schedulePeriodic } from "@shelf/server/periodic";
import type { ArtifactStore } from "@shelf/server/storage/store";
import { resumeStaleReplays } from "./submit";

/**
 * Resumes orphaned replays (`resumeStaleReplays`) soon after start and then every `intervalMs`, from any instance of
 * the design app; `stop` ends the timer and waits for a pass in progress.
 */
export function scheduleReplayResume(
  db: Database,
  store: ArtifactStore,
  options: { intervalMs: number; staleSeconds?: number; log: Logger },
): Periodic {
  return schedulePeriodic(
    async () => {
      await resumeStaleReplays(db, store, { staleSeconds: options.staleSeconds, log: options.log });
    },
    {
      intervalMs: options.intervalMs,
      firstWithinMs: Math.min(options.intervalMs, 30_000),
      log: options.log,
      failure: "resuming replays failed; the next pass tries again",
    },
  );
}
