import { z } from "zod";

/** A step of a product's manual, by its position in `install_steps` (0 first). */
const StepIndexes = z.array(z.number().int().min(0).max(9999)).max(1000);

/**
 * Steps to mark done, and (an extension of the contract) steps to mark not done. Both are changes, applied at once
 * to what is stored, so that two devices recording different steps at the same time never lose each other's.
 */
export const SetupProgressInput = z
  .object({
    completed_step_indexes: StepIndexes.optional(),
    uncompleted_step_indexes: StepIndexes.optional(),
  })
  .superRefine((input, context) => {
    const done = new Set(input.completed_step_indexes ?? []);
    for (const [at, index] of (input.uncompleted_step_indexes ?? []).entries()) {
      if (done.has(index)) {
        context.addIssue({
          code: "custom",
          path: ["uncompleted_step_indexes", at],
          message: "cannot be both completed and uncompleted",
        });
      }
    }
  });
export type SetupProgressInput = z.infer<typeof SetupProgressInput>;
