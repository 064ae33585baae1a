import type { Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, desc, eq, sql } from "drizzle-orm";
import { DomainError } from "../../errors";
import type { CollectRunData } from "./schemas";
import { notFound, runData, runsWithCounts } from "./service";

const { collectRuns } = schema;

/** Operators (`design-run:list`): the newest runs first, of every opener, with their counts. */
export async function listRuns(db: Executor, options: { limit?: number } = {}): Promise<CollectRunData[]> {
  const rows = await runsWithCounts(db)
    .orderBy(desc(collectRuns.id))
    .limit(options.limit ?? 50);
  return rows.map(runData);
}

/**
 * Operators (`design-run:fail`): ends an open run failed, whoever opened it, freeing a stuck collection lock at once
 * rather than at the end of its lease. A run that is not open is 409, one that does not exist 404.
 */
export async function failRunAsOperator(db: Executor, runId: number, reason?: string | null): Promise<CollectRunData> {
  const [ended] = await db
    .update(collectRuns)
    .set({ status: "failed", error: reason || "ended by an operator", finishedAt: sql`now()` })
    .where(and(eq(collectRuns.id, runId), eq(collectRuns.status, "open")))
    .returning({ id: collectRuns.id });
  const [row] = await runsWithCounts(db).where(eq(collectRuns.id, runId));
  if (!row) throw notFound(runId);
  if (!ended) {
    throw new DomainError("run_not_open", `Collect run ${runId} is ${row.run.status}, not open: nothing to end.`);
  }
  return runData(row);
}
