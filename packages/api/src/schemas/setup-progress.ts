import { z } from "zod";
import { DateTime } from "./common";

/** How far a buyer is through a product's setup steps: the library shows it, the setup routes record it. */
export const ProductSetupProgressData = z
  .object({
    completed_step_indexes: z.array(z.number().int()),
    completed_count: z.number().int(),
    total_count: z.number().int(),
    progress_percent: z.number().int(),
    completed: z.boolean(),
    completed_at: DateTime.nullable(),
  })
  .meta({ id: "ProductSetupProgressData" });
export type ProductSetupProgressData = z.infer<typeof ProductSetupProgressData>;
