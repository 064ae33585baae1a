import { releaseChannels } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime } from "../../schemas/common";
import { ProductListingFields } from "../../schemas/product-listing";

export { DisclosureData, PublicDisclosureData } from "../../schemas/disclosure";

export const PipelineReleaseData = z
  .object({
    product_id: z.number().int(),
    slug: z.string().nullable(),
    name: z.string(),
    release_id: z.number().int(),
    version: z.string(),
    build: z.string().nullable(),
    released_at: DateTime,
    platforms: z.array(z.string()),
    critical: z.boolean(),
    /** What a release needs before apps take it: a stored file, its signature, notes in both languages, a minimum OS. */
    checklist: z.object({
      artifact: z.boolean(),
      signature: z.boolean(),
      notes_en: z.boolean(),
      notes_ko: z.boolean(),
      min_os_version: z.boolean(),
    }),
    ready: z.boolean(),
  })
  .meta({ id: "PipelineReleaseData" });

export const DownloadPipelineData = z
  .object({
    channels: z.array(
      z.object({
        channel: z.enum(releaseChannels),
        /** The newest release on this channel of every published product that has one. */
        products: z.array(PipelineReleaseData),
        platforms: z.array(z.string()),
        ready: z.number().int(),
        total: z.number().int(),
      }),
    ),
  })
  .meta({ id: "DownloadPipelineData" });
export type DownloadPipelineData = z.infer<typeof DownloadPipelineData>;

export const LineageSummaryData = z
  .object({ slug: z.string(), name: z.string(), description: z.string().nullable(), product_count: z.number().int() })
  .meta({ id: "LineageSummaryData" });

export const LineagesData = z.object({ lineages: z.array(LineageSummaryData) }).meta({ id: "LineagesData" });

export const LineageData = z
  .object({
    lineage: z.object({
      slug: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      products: z.array(
        z.object({
          ...ProductListingFields.shape,
          platforms: z.array(z.string()),
          latest_version: z.string().nullable(),
          released_at: DateTime.nullable(),
        }),
      ),
    }),
  })
  .meta({ id: "LineageData" });
