import { designVerdicts, designVersionStatuses } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime, IdParam } from "../../schemas/common";
import { DesignDocumentData } from "../../schemas/design-document";

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
