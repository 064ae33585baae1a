import { z } from "zod";
import { DateTime } from "../../schemas/common";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const ManifestDocument = z
  .object({
    slug: z.string(),
    title: z.string(),
    current_version: z.number().int().nullable(),
    latest_version: z.number().int(),
    updated_at: DateTime,
  })
  .meta({ id: "ManifestDocument" });

export const SkillPackageData = z
  .object({
    name: z.string(),
    description: z.string(),
    /** The Agent Skills discovery index that lists this package. */
    index_url: z.url(),
    archive: z.object({
      url: z.url(),
      media_type: z.literal("application/gzip"),
      size: z.number().int(),
      sha256: Sha256,
    }),
    /** Each file inside the archive, with its own digest. */
    files: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: Sha256 })),
  })
  .meta({ id: "SkillPackageData" });

export const ManifestAnswer = z.object({
  items: z.array(ManifestDocument),
  next_cursor: z.string().nullable(),
  skill: SkillPackageData,
  /** The design host's OpenAPI document: every route, field and answer. */
  openapi_url: z.url(),
});

/** The Agent Skills discovery index (schema 0.2.0). */
export const SkillIndex = z.object({
  $schema: z.string(),
  skills: z.array(
    z.object({
      name: z.string(),
      type: z.literal("archive"),
      description: z.string(),
      url: z.string(),
      digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    }),
  ),
});
