import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { inArray } from "drizzle-orm";
import { z } from "zod";
import { DomainError, isUniqueViolation, parseInput } from "../../errors";

const { lineages, products } = schema;

export const CreateLineageInput = z.object({
  slug: z
    .string()
    .trim()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase letters, digits and single hyphens")
    .max(100),
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).nullish(),
  active: z.boolean().default(true),
  position: z.number().int().min(0).max(100_000).default(0),
  /** Products to put in it (each belongs to one lineage at most: they leave the one they were in). */
  productIds: z.array(z.number().int().positive()).max(500).default([]),
});
export type CreateLineageInput = z.input<typeof CreateLineageInput>;

/** `lineage:create`: a lineage and the products in it, together. */
export async function createLineage(db: Database, rawInput: CreateLineageInput) {
  const input = parseInput(CreateLineageInput, rawInput);
  return db.transaction(async (tx) => {
    let created: typeof lineages.$inferSelect;
    try {
      [created] = (await tx
        .insert(lineages)
        .values({
          slug: input.slug,
          name: input.name,
          description: input.description ?? null,
          active: input.active,
          position: input.position,
        })
        .returning()) as [typeof lineages.$inferSelect];
    } catch (error) {
      if (isUniqueViolation(error, "lineages_slug_key")) {
        throw new DomainError("conflict", `A lineage with the slug ${input.slug} already exists.`);
      }
      throw error;
    }
    const ids = [...new Set(input.productIds)];
    const moved = ids.length
      ? await tx
          .update(products)
          .set({ lineageId: created.id })
          .where(inArray(products.id, ids))
          .returning({ id: products.id })
      : [];
    const missing = ids.filter((id) => !moved.some((row) => row.id === id));
    if (missing.length) throw new DomainError("not_found", `No product ${missing.join(", ")}.`);
    return { id: created.id, slug: created.slug, name: created.name, active: created.active, product_ids: ids };
  });
}
