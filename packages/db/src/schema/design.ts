import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { DesignRole, DesignVerdict, DesignVersionStatus } from "../enums";
import { identityId, sha256Lookup, timestampNow } from "./columns";

/**
 * A bearer token for the design host's agents (contract 5.12), issued by an operator: not an account's, and never
 * accepted by the account API. Only its SHA-256 is kept; the plain token is shown once.
 */
export const designTokens = pgTable(
  "design_tokens",
  {
    id: identityId(),
    name: text().notNull(),
    /** The first 14 characters of the plain token, shown in token lists. */
    prefix: text().notNull(),
    /** SHA-256 of the plain token, lowercase hex. */
    hash: text().notNull(),
    roles: text().array().$type<DesignRole[]>().notNull(),
    expiresAt: timestamp({ withTimezone: true }),
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    createdAt: timestampNow(),
  },
  (t) => [
    ...sha256Lookup("design_tokens_hash", t.hash),
    check(
      "design_tokens_roles",
      sql`cardinality(${t.roles}) > 0 AND ${t.roles} <@ ARRAY['collect', 'read', 'write', 'review']::text[]`,
    ),
  ],
);

/** A design document (a guideline, component notes): its versions are written by agents and reviewed. */
export const designDocuments = pgTable(
  "design_documents",
  {
    id: identityId(),
    slug: text().notNull(),
    title: text().notNull(),
    createdAt: timestampNow(),
    /** When its newest version was written, submitted or reviewed. */
    updatedAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("design_documents_slug_key").on(t.slug),
    check("design_documents_slug", sql`${t.slug} ~ '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$'`),
  ],
);

/**
 * One version of a design document: version N is written on version N-1 (its base), never beside it, so two
 * writers on one base cannot both win. It is a draft until submitted, then carries its review's verdict.
 */
export const designDocumentVersions = pgTable(
  "design_document_versions",
  {
    id: identityId(),
    documentId: integer()
      .notNull()
      .references(() => designDocuments.id, { onDelete: "cascade" }),
    number: integer().notNull(),
    body: text().notNull(),
    status: text().$type<DesignVersionStatus>().notNull().default("draft"),
    authorTokenId: integer().references(() => designTokens.id, { onDelete: "set null" }),
    authorName: text().notNull(),
    createdAt: timestampNow(),
    submittedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("design_document_versions_number_key").on(t.documentId, t.number),
    index("design_document_versions_pending").on(t.id).where(sql`${t.status} = 'submitted'`),
    check("design_document_versions_number", sql`${t.number} >= 1`),
    check(
      "design_document_versions_status",
      sql`${t.status} IN ('draft', 'submitted', 'approved', 'changes_requested', 'rejected')`,
    ),
    check("design_document_versions_submitted", sql`(${t.status} = 'draft') = (${t.submittedAt} IS NULL)`),
  ],
);

/** The one verdict on a submitted version: it binds to that version only, never to a newer one. */
export const designReviews = pgTable(
  "design_reviews",
  {
    id: identityId(),
    versionId: integer()
      .notNull()
      .references(() => designDocumentVersions.id, { onDelete: "cascade" }),
    verdict: text().$type<DesignVerdict>().notNull(),
    reason: text().notNull(),
    reviewerTokenId: integer().references(() => designTokens.id, { onDelete: "set null" }),
    reviewerName: text().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("design_reviews_version_key").on(t.versionId),
    check("design_reviews_verdict", sql`${t.verdict} IN ('approved', 'changes_requested', 'rejected')`),
    check("design_reviews_reason", sql`char_length(${t.reason}) > 0`),
  ],
);
