import { createHash } from "node:crypto";
import type { Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import type { ArtifactStore, StoredObject } from "@shelf/server/storage/store";
import { and, desc, eq, gt, sql } from "drizzle-orm";
import type { ApiKeyCaller } from "../../auth/caller";
import type { UploadedFile } from "../../schemas/upload";
import type { SupportReportData, SupportReportInput } from "./schemas";

const { supportReports, supportTickets } = schema;

/** A report joins an open ticket about the same problem whose last report came less than this long ago. */
export const DEDUP_WINDOW_HOURS = 24;

/** A summary as it is compared: Unicode-normalised, lower case, single spaces, no trailing punctuation. */
export function normaliseSummary(summary: string): string {
  return summary
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[\s.!?…。]+$/u, "")
    .trim();
}

/**
 * What makes two reports the same problem: the same kind, app (bundle id, or none) and normalised summary, for the
 * same account (the account is part of the ticket's lookup, not of the key).
 */
export function dedupKey(input: Pick<SupportReportInput, "kind" | "app_bundle_id" | "summary">): string {
  return createHash("sha256")
    .update([input.kind, input.app_bundle_id ?? "", normaliseSummary(input.summary)].join("\n"))
    .digest("hex");
}

/**
 * `POST /api/support/reports`: a problem report of this device's account, with an optional diagnostic bundle. A
 * report of the same problem within 24 hours of its ticket's last report joins that ticket (`deduplicated`, answered
 * 200); otherwise it opens a ticket (201). Reports of one problem take turns on a lock, so parallel repeats make one
 * ticket, never two. The bundle is stored first and removed again if the report cannot be recorded.
 */
export async function recordSupportReport(
  db: Executor,
  /** Where a diagnostic bundle goes; none is needed for a report without one. */
  store: ArtifactStore | null,
  /** A device's key, or (without `keyId`) a signed-in person filing from the pages. */
  caller: Pick<ApiKeyCaller, "accountId"> & { keyId?: number },
  input: SupportReportInput & { bundle?: UploadedFile | null },
): Promise<SupportReportData> {
  const key = dedupKey(input);
  if (input.bundle && !store) throw new Error("A report with a bundle needs the artifact store.");
  const bundle: StoredObject | null =
    input.bundle && store ? await store.put([input.bundle.bytes], input.bundle.contentType) : null;
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`shelf.support:${caller.accountId}:${key}`}, 0))`,
      );
      const [open] = await tx
        .select()
        .from(supportTickets)
        .where(
          and(
            eq(supportTickets.accountId, caller.accountId),
            eq(supportTickets.dedupKey, key),
            eq(supportTickets.status, "open"),
            gt(supportTickets.lastReportedAt, sql`now() - make_interval(hours => ${DEDUP_WINDOW_HOURS})`),
          ),
        )
        .orderBy(desc(supportTickets.lastReportedAt))
        .limit(1);
      const [ticket] = open
        ? await tx
            .update(supportTickets)
            .set({ reportCount: sql`${supportTickets.reportCount} + 1`, lastReportedAt: sql`now()` })
            .where(eq(supportTickets.id, open.id))
            .returning()
        : await tx
            .insert(supportTickets)
            .values({
              accountId: caller.accountId,
              kind: input.kind,
              summary: input.summary,
              dedupKey: key,
              appBundleId: input.app_bundle_id ?? null,
            })
            .returning();
      const saved = ticket as typeof supportTickets.$inferSelect;
      const [report] = await tx
        .insert(supportReports)
        .values({
          ticketId: saved.id,
          apiKeyId: caller.keyId ?? null,
          summary: input.summary,
          detail: input.detail,
          appVersion: input.app_version ?? null,
          macosVersion: input.macos_version ?? null,
          deviceId: input.device_id ?? null,
          bundleKey: bundle?.key ?? null,
          bundleSize: bundle?.size ?? null,
          bundleSha256: bundle?.sha256 ?? null,
          bundleFilename: input.bundle?.filename ?? null,
        })
        .returning({ id: supportReports.id });
      return {
        deduplicated: open !== undefined,
        ticket: {
          id: saved.id,
          kind: saved.kind,
          summary: saved.summary,
          status: saved.status,
          report_count: saved.reportCount,
          created_at: saved.createdAt.toISOString(),
          last_reported_at: saved.lastReportedAt.toISOString(),
        },
        report: {
          id: (report as { id: number }).id,
          bundle: bundle
            ? { size: bundle.size, sha256: bundle.sha256, filename: input.bundle?.filename ?? null }
            : null,
        },
      };
    });
  } catch (error) {
    if (bundle && store) await store.remove(bundle.key);
    throw error;
  }
}
