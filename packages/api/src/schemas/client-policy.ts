import { z } from "zod";

/** A client version the policy may require: plain semver, as `1.4.0` (a leading `v` is dropped). */
export const MinClientVersion = z
  .string()
  .trim()
  .max(64)
  .regex(/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, "must be a version like 1.4.0")
  .transform((version) => version.replace(/^v/, ""));

export const SetPolicyInput = z
  .object({
    minClientVersion: MinClientVersion.optional(),
    recheckHours: z.number().int().min(1).max(8760).optional(),
    ttlDays: z.number().int().min(1).max(365).optional(),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), {
    message: "change at least one setting",
  });
export type SetPolicyInput = z.input<typeof SetPolicyInput>;
