import type { Database } from "@shelf/db";
import type { Logger } from "../../log";
import type { ArtifactStore } from "../../storage/store";
import { resumeStaleReplays } from "./service";

/**
 * Resumes orphaned replays (`resumeStaleReplays`) once at start and then every `intervalMs`, from any instance of the
 * design app; `stop` ends the timer and waits for a pass in progress. A failed pass is logged; the next one tries
 * again.
 */
export function scheduleReplayResume(
  db: Database,
  store: ArtifactStore,
  options: { intervalMs: number; staleSeconds?: number; log: Logger },
): { runNow(): Promise<void>; stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= resumeStaleReplays(db, store, { staleSeconds: options.staleSeconds, log: options.log })
      .then(() => undefined)
      .catch((error: unknown) => options.log.warn({ err: error }, "resuming replays failed; the next pass tries again"))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const first = setTimeout(run, Math.random() * Math.min(options.intervalMs, 30_000));
  const every = setInterval(run, options.intervalMs);
  first.unref();
  every.unref();
  return {
    runNow: run,
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
