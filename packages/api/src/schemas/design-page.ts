import { z } from "zod";

/**
 * The one paging contract of the design host's lists: `limit` (default 20, at most 100) items after `cursor`, the
 * `next_cursor` of the page before (null on the last page). A cursor names the last item seen, so rows added while
 * an agent pages neither shift nor repeat the pages it has not read yet.
 */
export const DESIGN_PAGE = { default: 20, max: 100 } as const;

const NOT_A_CURSOR = "must be the next_cursor of the page before";

export const PageInput = z.object({
  // Every cursor is a row id: an integer column, so a larger number can name no row (and would fail in SQL).
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, { error: NOT_A_CURSOR })
    .refine((text) => Number(text) <= 2_147_483_647, { error: NOT_A_CURSOR })
    .optional(),
  limit: z.number().int().min(1).max(DESIGN_PAGE.max).optional(),
});
export type PageInput = z.infer<typeof PageInput>;
