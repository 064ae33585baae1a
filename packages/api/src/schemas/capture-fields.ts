import { captureOutcomes, collectLangs, collectViewports } from "@shelf/db/enums";
import { z } from "zod";

/**
 * A captured page's identity (one page at one viewport, language and signed-in state) and how capturing it went: the
 * fields a collect agent uploads, the design host answers with and the demo's saved run holds, in that order.
 */
export const CaptureFields = z.object({
  key: z.string(),
  url: z.string(),
  viewport: z.enum(collectViewports),
  lang: z.enum(collectLangs),
  auth: z.boolean(),
  outcome: z.enum(captureOutcomes),
  message: z.string().nullable(),
  login_stage: z.boolean().nullable(),
  saved_state: z.boolean().nullable(),
  final_url: z.string().nullable(),
});
export type CaptureFields = z.infer<typeof CaptureFields>;
