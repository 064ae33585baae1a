import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { ErrorType, SupportKind } from "../enums";
import { belongsToAccount } from "./accounts";
import { identityId, timestampNow } from "./columns";

/**
 * A crash or exception report an app sent without a key (`POST /api/error-reports`). Reports of the same error share a
 * fingerprint (type, normalised message, top stack frames), which is how operators see them grouped.
 */
export const errorReports = pgTable(
  "error_reports",
  {
    id: identityId(),
    fingerprint: text().notNull(),
    appBundleId: text().notNull(),
    appVersion: text().notNull(),
    osVersion: text(),
    deviceModel: text(),
    errorType: text().$type<ErrorType>().notNull(),
    errorMessage: text().notNull(),
    stackTrace: text(),
    context: jsonb().$type<Record<string, unknown>>(),
    createdAt: timestampNow(),
  },
  (t) => [
    index().on(t.fingerprint, t.createdAt),
    index().on(t.createdAt),
    check("error_reports_type", sql`${t.errorType} IN ('crash', 'exception', 'warning')`),
  ],
);

/**
 * A support ticket: the first report of a problem, and the repeats that joined it (the same account, kind, app and
 * summary within 24 hours of the ticket's last report).
 */
export const supportTickets = pgTable(
  "support_tickets",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    kind: text().$type<SupportKind>().notNull(),
    summary: text().notNull(),
    /** What makes two reports the same problem: kind, app bundle id and the summary, normalised, hashed. */
    dedupKey: text().notNull(),
    appBundleId: text(),
    status: text().notNull().default("open"),
    reportCount: integer().notNull().default(1),
    createdAt: timestampNow(),
    lastReportedAt: timestampNow(),
  },
  (t) => [
    index().on(t.accountId, t.dedupKey, t.lastReportedAt),
    check("support_tickets_kind", sql`${t.kind} IN ('general', 'app_report', 'refund_request')`),
    check("support_tickets_status", sql`${t.status} IN ('open', 'closed')`),
  ],
);

export const supportReports = pgTable(
  "support_reports",
  {
    id: identityId(),
    ticketId: integer()
      .notNull()
      .references(() => supportTickets.id, { onDelete: "cascade" }),
    apiKeyId: integer(),
    summary: text().notNull(),
    detail: text().notNull(),
    appVersion: text(),
    macosVersion: text(),
    deviceId: text(),
    /** The diagnostic bundle, in the artifact store. */
    bundleKey: text(),
    bundleSize: bigint({ mode: "number" }),
    bundleSha256: text(),
    bundleFilename: text(),
    createdAt: timestampNow(),
  },
  (t) => [
    index().on(t.ticketId),
    check(
      "support_reports_bundle_complete",
      sql`(${t.bundleKey} IS NULL) = (${t.bundleSize} IS NULL) AND (${t.bundleKey} IS NULL) = (${t.bundleSha256} IS NULL)`,
    ),
  ],
);
