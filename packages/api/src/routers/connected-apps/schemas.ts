import { z } from "zod";

/** A connected app as the account sees it: what it may do, where it sends people back, and when it last acted. */
export const ConnectedAppData = z.object({
  id: z.number().int(),
  client_id: z.string(),
  client_name: z.string(),
  /** The host of the redirect URI the person approved. */
  redirect_host: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ConnectedAppData = z.infer<typeof ConnectedAppData>;

export const ConnectedAppIdInput = z.object({ id: z.number().int().positive() });
