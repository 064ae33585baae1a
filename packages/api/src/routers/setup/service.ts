import type { Database } from "@shelf/db";
import type { Caller } from "../../auth/caller";
import { type FieldErrors, ValidationError } from "../../errors";
import type { ProductAccess } from "../../product-access";
import type { ProductSetupProgressData } from "../../schemas/setup-progress";
import { isoSql, preparedRows } from "../../sql-text";
import type { SetupProgressInput } from "./schemas";

type ProgressRow = { total: number; done: number[] | null; completed_at: string | null };

/** The product's manual steps, and the account's progress on them ($1 account, $2 product). */
const PROGRESS_SQL = `
  select coalesce(jsonb_array_length(p.manual->'install_steps'), 0)::int as total, sp.completed_step_indexes as done,
    ${isoSql("sp.completed_at")} as completed_at
  from products p left join setup_progress sp on sp.account_id = $1 and sp.product_id = p.id
  where p.id = $2`;

/** Stored steps with the changes applied ($3 done, $4 undone): steps beyond the manual's $5 (it may shrink) dropped. */
const merged = (stored: string) =>
  `coalesce((select array_agg(distinct s order by s) from unnest(coalesce(${stored}, '{}') || $3::int[]) s
    where s <> all($4::int[]) and s < $5::int), '{}')`;
const allDone = (steps: string) => `$5::int > 0 and cardinality(${steps}) >= $5::int`;

/**
 * Applies changes to the stored steps in one statement: the upsert's row lock serializes writers, and each applies
 * its own changes to what the previous one left. `completed_at` is when every step was first done, cleared when one
 * is undone.
 */
const UPDATE_SQL = `
  insert into setup_progress as sp (account_id, product_id, completed_step_indexes, completed_at, updated_at)
  values ($1, $2, ${merged("null::int[]")}, case when ${allDone(merged("null::int[]"))} then now() end, now())
  on conflict (account_id, product_id) do update set
    completed_step_indexes = ${merged("sp.completed_step_indexes")},
    completed_at = case when ${allDone(merged("sp.completed_step_indexes"))} then coalesce(sp.completed_at, now()) end,
    updated_at = now()
  returning $5::int as total, completed_step_indexes as done, ${isoSql("completed_at")} as completed_at`;

/** ProductSetupProgressData from stored steps, as the library computes it: only steps the manual still has count. */
export function toProgressData(row: ProgressRow): ProductSetupProgressData {
  const done = (row.done ?? []).filter((index) => index < row.total).sort((a, b) => a - b);
  const completed = row.total > 0 && done.length >= row.total;
  return {
    completed_step_indexes: done,
    completed_count: done.length,
    total_count: row.total,
    progress_percent: row.total === 0 ? 0 : Math.floor((done.length * 100) / row.total),
    completed,
    completed_at: completed ? row.completed_at : null,
  };
}

export async function getSetupProgress(db: Database, caller: Caller, access: ProductAccess) {
  const [row] = await preparedRows<ProgressRow>(db, PROGRESS_SQL, [caller.accountId, access.id]);
  return toProgressData(row as ProgressRow);
}

/** Records steps done (and undone) on the product's manual; an index the manual does not have is a 422. */
export async function updateSetupProgress(
  db: Database,
  caller: Caller,
  access: ProductAccess,
  input: SetupProgressInput,
): Promise<ProductSetupProgressData> {
  const [current] = await preparedRows<ProgressRow>(db, PROGRESS_SQL, [caller.accountId, access.id]);
  const total = (current as ProgressRow).total;
  const errors: FieldErrors = {};
  for (const field of ["completed_step_indexes", "uncompleted_step_indexes"] as const) {
    for (const [at, index] of (input[field] ?? []).entries()) {
      if (index >= total) {
        errors[`${field}.${at}`] = [
          total === 0
            ? "is not a step: this product's manual has no steps"
            : `is not a step of this product's manual (0 to ${total - 1})`,
        ];
      }
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const [row] = await preparedRows<ProgressRow>(db, UPDATE_SQL, [
    caller.accountId,
    access.id,
    input.completed_step_indexes ?? [],
    input.uncompleted_step_indexes ?? [],
    total,
  ]);
  return toProgressData(row as ProgressRow);
}
