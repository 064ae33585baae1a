import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type {
  CaptureImageType,
  CaptureOutcome,
  CollectApp,
  CollectAssetType,
  CollectLang,
  CollectRunStatus,
  CollectViewport,
} from "../enums";
import { identityId, timestampNow } from "./columns";
import { designTokens } from "./design";

/** What a replay did to the gallery, kept on the run for its status. */
export type ReplaySummary = {
  added: { apps: number; screens: number; flows: number };
  changed: { apps: number; screens: number; flows: number };
  removed: { apps: number; screens: number; flows: number };
};

/**
 * One collector's pass over the company's web apps. At most one run is open at a time (the collection lock,
 * `collect_runs_one_open`): it holds the lock until `lease_expires_at`, which each upload moves forward, so a crashed
 * collector's run is displaced (ended failed) by the next open once its lease has run out.
 */
export const collectRuns = pgTable(
  "collect_runs",
  {
    id: identityId(),
    status: text().$type<CollectRunStatus>().notNull().default("open"),
    /** The apps it meant to walk; null: all of them. */
    apps: text().array().$type<CollectApp[]>(),
    viewports: text().array().$type<CollectViewport[]>().notNull(),
    langs: text().array().$type<CollectLang[]>().notNull(),
    openerTokenId: integer().references(() => designTokens.id, { onDelete: "set null" }),
    /** The opening token's name: tokens of one name are one agent's family (rotated tokens keep seeing its runs). */
    openerName: text().notNull(),
    leaseExpiresAt: timestamp({ withTimezone: true }).notNull(),
    /** Why it failed: the collector's own error, an expired lease, an operator, or the replay's. */
    error: text(),
    /** What the collector reported at submit: whether each test account was found, and the builds it saw. */
    accounts: jsonb().$type<{ found: boolean; reason: string | null }[]>(),
    buildVersions: text().array(),
    replay: jsonb().$type<ReplaySummary>(),
    createdAt: timestampNow(),
    submittedAt: timestamp({ withTimezone: true }),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("collect_runs_one_open").on(sql`(true)`).where(sql`${t.status} = 'open'`),
    index().on(t.createdAt),
    check("collect_runs_status", sql`${t.status} IN ('open', 'submitted', 'replaying', 'replayed', 'failed')`),
    check("collect_runs_viewports", sql`cardinality(${t.viewports}) > 0`),
    check("collect_runs_langs", sql`cardinality(${t.langs}) > 0`),
  ],
);

/** A CSS or JS file a run's pages used, stored once per run by its SHA-256 (its bytes in the artifact store). */
export const collectAssets = pgTable(
  "collect_assets",
  {
    id: identityId(),
    runId: integer()
      .notNull()
      .references(() => collectRuns.id, { onDelete: "cascade" }),
    sha256: text().notNull(),
    type: text().$type<CollectAssetType>().notNull(),
    url: text().notNull(),
    size: integer().notNull(),
    /** Where the artifact store keeps its bytes (the key the store chose). */
    objectKey: text().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("collect_assets_run_sha256_key").on(t.runId, t.sha256),
    check("collect_assets_sha256_hex", sql`${t.sha256} ~ '^[0-9a-f]{64}$'`),
    check("collect_assets_type", sql`${t.type} IN ('css', 'js')`),
  ],
);

/**
 * One page as the collector saw it at one viewport, language and signed-in state: its thumbnail, trimmed HTML and
 * metadata, under a key of the collector's (40 characters) unique within the run.
 */
export const collectCaptures = pgTable(
  "collect_captures",
  {
    id: identityId(),
    runId: integer()
      .notNull()
      .references(() => collectRuns.id, { onDelete: "cascade" }),
    key: text().notNull(),
    url: text().notNull(),
    viewport: text().$type<CollectViewport>().notNull(),
    lang: text().$type<CollectLang>().notNull(),
    auth: boolean().notNull(),
    outcome: text().$type<CaptureOutcome>().notNull(),
    message: text(),
    loginStage: boolean(),
    savedState: boolean(),
    finalUrl: text(),
    httpStatus: integer(),
    /** The collector's metadata (app, title, page type, patterns, elements, ...): every field optional, unknown kept. */
    meta: jsonb().$type<Record<string, unknown>>(),
    imageSha256: text().notNull(),
    imageType: text().$type<CaptureImageType>().notNull(),
    imageWidth: integer().notNull(),
    imageHeight: integer().notNull(),
    imageSize: integer().notNull(),
    imageKey: text().notNull(),
    htmlSha256: text(),
    htmlSize: integer(),
    htmlKey: text(),
    /** The run's assets this page used, by SHA-256. */
    assets: text().array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("collect_captures_run_key").on(t.runId, t.key),
    check("collect_captures_key_length", sql`char_length(${t.key}) = 40`),
    check("collect_captures_viewport", sql`${t.viewport} IN ('desktop', 'mobile')`),
    check("collect_captures_lang", sql`${t.lang} IN ('ko', 'en')`),
    check("collect_captures_outcome", sql`${t.outcome} IN ('ok', 'failed', 'redirected')`),
    check("collect_captures_image_type", sql`${t.imageType} IN ('png', 'jpeg', 'webp')`),
    check("collect_captures_html", sql`(${t.htmlKey} IS NULL) = (${t.htmlSha256} IS NULL)`),
  ],
);
