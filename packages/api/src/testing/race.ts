import type { Database } from "@shelf/db";
import { type SQL, sql } from "drizzle-orm";

/**
 * Runs `calls` at once while a transaction of the test holds a row lock (`lock`, a `SELECT ... FOR UPDATE`), and
 * lets them go only when every call either waits on a lock in this database or has already finished: calls that
 * reach for the same row are then certain to race for it, whatever the machine's timing.
 */
export async function raceOnLock<T>(
  db: Database,
  lock: SQL,
  calls: (() => Promise<T>)[],
  timeoutMs = 15_000,
): Promise<PromiseSettledResult<T>[]> {
  let settled: Promise<PromiseSettledResult<T>[]> | undefined;
  await db.transaction(async (tx) => {
    await tx.execute(lock);
    let finished = 0;
    settled = Promise.allSettled(calls.map((call) => call().finally(() => finished++)));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Asked on another connection: a transaction sees pg_stat_activity as it was at its first look.
      const [row] = await db.execute<{ waiting: number }>(
        sql`select count(*)::int as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if ((row?.waiting ?? 0) + finished >= calls.length) return;
      if (Date.now() > deadline) throw new Error(`the calls did not all reach the lock within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  return settled as Promise<PromiseSettledResult<T>[]>;
}
