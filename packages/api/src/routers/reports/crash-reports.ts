import { createHash } from "node:crypto";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { sql } from "drizzle-orm";
import { isoSql, sqlRows } from "../../sql-text";
import type { ErrorReportInput } from "./schemas";

/** How many stack frames decide which group a report joins. */
const TOP_FRAMES = 3;

/** What varies between occurrences of one error (addresses, ids, numbers, line and column), made alike. */
function normalise(text: string): string {
  return text
    .replace(/0x[0-9a-f]+/gi, "0x?")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\d+/g, "#")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The group of a report: SHA-256 (first 16 hex digits) of its type, its normalised message and its top three
 * normalised stack frames (the trace's first lines other than the message itself), so the same crash from many
 * devices, addresses and builds is one group.
 */
export function errorFingerprint(report: Pick<ErrorReportInput, "error_type" | "error_message" | "stack_trace">) {
  const message = normalise(report.error_message);
  const frames = (report.stack_trace ?? "")
    .split(/\r?\n/)
    .map(normalise)
    .filter((line) => line !== "" && line !== message && !message.includes(line))
    .slice(0, TOP_FRAMES);
  return createHash("sha256")
    .update([report.error_type, message, ...frames].join("\n"))
    .digest("hex")
    .slice(0, 16);
}

/** `POST /api/error-reports`: stores an app's crash or exception report for operators. */
export async function recordErrorReport(db: Database, input: ErrorReportInput) {
  const fingerprint = errorFingerprint(input);
  const [row] = await db
    .insert(schema.errorReports)
    .values({
      fingerprint,
      appBundleId: input.app_bundle_id,
      appVersion: input.app_version,
      osVersion: input.os_version ?? null,
      deviceModel: input.device_model ?? null,
      errorType: input.error_type,
      errorMessage: input.error_message,
      stackTrace: input.stack_trace ?? null,
      context: input.context ?? null,
    })
    .returning({ id: schema.errorReports.id, createdAt: schema.errorReports.createdAt });
  const stored = row as { id: number; createdAt: Date };
  return { id: stored.id, fingerprint, received_at: stored.createdAt.toISOString() };
}

export type ErrorGroup = {
  fingerprint: string;
  error_type: string;
  message: string;
  reports: number;
  apps: string[];
  versions: string[];
  first_seen: string;
  last_seen: string;
};

/** `report:list`: error reports grouped by fingerprint, the busiest first, since a date (and of one app). */
export async function errorGroups(db: Database, options: { since: Date; app?: string; limit?: number }) {
  return sqlRows<ErrorGroup>(
    db,
    sql`select fingerprint, (array_agg(error_type order by created_at desc))[1] as error_type,
        left((array_agg(error_message order by created_at desc))[1], 200) as message, count(*)::int as reports,
        array_agg(distinct app_bundle_id order by app_bundle_id) as apps,
        array_agg(distinct app_version order by app_version) as versions,
        ${sql.raw(isoSql("min(created_at)"))} as first_seen, ${sql.raw(isoSql("max(created_at)"))} as last_seen
      from error_reports
      where created_at >= ${options.since.toISOString()} and (${options.app ?? null}::text is null or app_bundle_id = ${options.app ?? null})
      group by fingerprint order by count(*) desc, max(created_at) desc limit ${options.limit ?? 50}`,
  );
}
