import { z } from "zod";

/**
 * A product as the catalog lists it: who it is, what kind of thing it is and what it costs. The operator's product
 * record and a lineage's products both start with these fields, in this order.
 */
export const ProductListingFields = z.object({
  id: z.number().int(),
  slug: z.string().nullable(),
  name: z.string(),
  kind: z.string(),
  description: z.string().nullable(),
  unit_price_cents: z.number().int(),
  list_price_cents: z.number().int().nullable(),
  currency: z.string(),
});
