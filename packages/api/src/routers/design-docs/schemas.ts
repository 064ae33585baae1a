import { designVerdicts, designVersionStatuses } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime, IdParam } from "../../schemas/common";

/**
 * The one paging contract of the design host's lists: `limit` (default 20, at most 100) items after `cursor`, the
 * `next_cursor` of the page before (null on the last page). A cursor names the last item seen, so rows added while
 * an agent pages neither shift nor repeat the pages it has not read yet.
 */
export const DESIGN_PAGE = { default: 20, max: 100 } as const;

const NOT_A_CURSOR = "must be the next_cursor of the page before";

export const PageInput = z.object({
  // Every cursor is a row id: an integer column, so a larger number can name no row (and would fail in SQL).
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, { error: NOT_A_CURSOR })
    .refine((text) => Number(text) <= 2_147_483_647, { error: NOT_A_CURSOR })
    .optional(),
  limit: z.number().int().min(1).max(DESIGN_PAGE.max).optional(),
});
export type PageInput = z.infer<typeof PageInput>;

/** A document's name in paths: lowercase letters, digits and inner hyphens, 1 to 100 characters. */
export const DocumentSlug = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/, {
  error: "must be 1 to 100 lowercase letters, digits and inner hyphens",
});

/** Longest document body: 1 MiB of text is far beyond any guideline, and bounds every answer. */
export const MAX_DOCUMENT_BODY = 1_000_000;

export const DesignVersionData = z
  .object({
    number: z.number().int(),
    /** The version it was written on (number - 1; 0 for the first). */
    base_version: z.number().int(),
    status: z.enum(designVersionStatuses),
    author: z.string(),
    created_at: DateTime,
    submitted_at: DateTime.nullable(),
    review: z
      .object({
        verdict: z.enum(designVerdicts),
        reason: z.string(),
        reviewer: z.string(),
        reviewed_at: DateTime,
      })
      .nullable(),
  })
  .meta({ id: "DesignVersionData" });
export type DesignVersionData = z.infer<typeof DesignVersionData>;

export const DesignVersionWithBody = DesignVersionData.extend({ body: z.string() }).meta({
  id: "DesignVersionWithBody",
});

export const DesignDocumentData = z
  .object({
    slug: z.string(),
    title: z.string(),
    /** The newest approved version: what `GET` without `version` reads (null while none is approved). */
    current_version: z.number().int().nullable(),
    /** The newest version of any status: what a new version's `base_version` must name. */
    latest_version: z.number().int(),
    /** Submitted versions waiting for their review, oldest first. */
    pending_versions: z.array(z.number().int()),
    updated_at: DateTime,
  })
  .meta({ id: "DesignDocumentData" });
export type DesignDocumentData = z.infer<typeof DesignDocumentData>;

export const DocumentAnswer = z.object({ document: DesignDocumentData, version: DesignVersionWithBody });
export const VersionAnswer = z.object({ document: DesignDocumentData, version: DesignVersionData });
export const VersionsPage = z.object({ items: z.array(DesignVersionData), next_cursor: z.string().nullable() });

export const PendingReviewData = z
  .object({ slug: z.string(), title: z.string(), version: DesignVersionData })
  .meta({ id: "PendingReviewData" });
export const PendingPage = z.object({ items: z.array(PendingReviewData), next_cursor: z.string().nullable() });

export const ReadDocumentInput = z.object({ slug: DocumentSlug, version: IdParam.optional() });
export const WriteVersionInput = z.object({
  slug: DocumentSlug,
  body: z.string().min(1, { error: "must not be empty" }).max(MAX_DOCUMENT_BODY),
  base_version: z.number().int().min(0).max(2_147_483_646),
});
export type WriteVersionInput = z.infer<typeof WriteVersionInput>;
export const SubmitVersionInput = z.object({ slug: DocumentSlug, number: IdParam });
export const ReviewInput = z.object({
  slug: DocumentSlug,
  version: IdParam,
  verdict: z.enum(designVerdicts),
  reason: z.string().trim().min(1, { error: "must say why" }).max(10_000),
});
export type ReviewInput = z.infer<typeof ReviewInput>;
