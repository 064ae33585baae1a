import type { Logger } from "./log";

/** A pass run on a timer from a running server. */
export type Periodic = {
  /** Runs a pass now (unless one is running), resolving when it is done. */
  runNow(): Promise<void>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
};

/**
 * Runs `pass` every `intervalMs`, one pass at a time. The first comes after a random part of `firstWithinMs`, so
 * instances started together do not all reach for the same work at once. A failed pass is logged (`failure`) and the
 * next one tries again. The timers never keep the process alive.
 */
export function schedulePeriodic(
  pass: () => Promise<void>,
  options: { intervalMs: number; firstWithinMs: number; log: Logger; failure: string },
): Periodic {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= pass()
      .catch((error: unknown) => options.log.warn({ err: error }, options.failure))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const first = setTimeout(run, Math.random() * options.firstWithinMs);
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
