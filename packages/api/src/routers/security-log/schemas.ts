import { schema } from "@shelf/db";
import { z } from "zod";

export const SecurityEventData = z.object({
  id: z.number().int(),
  kind: z.enum(schema.securityEventKinds),
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  address: z.string().nullable(),
  created_at: z.string(),
});
export type SecurityEventData = z.infer<typeof SecurityEventData>;

export const SecurityLogInput = z.object({
  /** The page after the one that ended with this event id (older events); absent: the newest. */
  before: z.number().int().positive().optional(),
  limit: z.number().int().min(1).max(100).default(25),
});
export type SecurityLogInput = z.input<typeof SecurityLogInput>;

export const SecurityLogData = z.object({
  events: z.array(SecurityEventData),
  /** The `before` of the next (older) page; null on the last. */
  next_before: z.number().int().nullable(),
});
export type SecurityLogData = z.infer<typeof SecurityLogData>;
