import { z } from "zod";
import { DateTime } from "./common";

/** A design document as the design docs routes and the manifest describe it. */
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
