import { z } from "zod";

export const WebSessionData = z.object({
  id: z.number().int(),
  /** The session this request is made with. */
  current: z.boolean(),
  created_at: z.string(),
  last_seen_at: z.string(),
  expires_at: z.string(),
  /** Where it signed in from, and with what browser, as the security log recorded the sign-in. */
  address: z.string().nullable(),
  user_agent: z.string().nullable(),
});
export type WebSessionData = z.infer<typeof WebSessionData>;

export const WebSessionIdInput = z.object({ id: z.number().int().positive() });
