import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { DomainError, isUniqueViolation, parseInput } from "../../errors";
import { ProductListingFields } from "../../schemas/product-listing";

const { products } = schema;

/** What an operator sets when adding a product to the catalog; the rich content comes later. */
export const CreateProductInput = z.object({
  name: z.string().trim().min(1).max(200),
  slug: z
    .string()
    .trim()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase letters, digits and single hyphens")
    .max(100)
    .nullish(),
  kind: z.string().trim().min(1).max(40).default("app"),
  description: z.string().trim().max(5000).nullish(),
  unitPriceCents: z.number().int().min(0).default(0),
  listPriceCents: z.number().int().min(0).nullish(),
  currency: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{3}$/, "a three-letter ISO 4217 code")
    .transform((code) => code.toUpperCase())
    .default("USD"),
  published: z.boolean().default(true),
  deviceLimit: z.number().int().positive().nullish(),
});
export type CreateProductInput = z.input<typeof CreateProductInput>;

export const ProductRecord = z.object({
  ...ProductListingFields.shape,
  published: z.boolean(),
  device_limit: z.number().int().nullable(),
  purchase_url: z.string().nullable(),
  created_at: z.string(),
});
export type ProductRecord = z.infer<typeof ProductRecord>;

type ProductRow = typeof products.$inferSelect;

export function toProductRecord(row: ProductRow): ProductRecord {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    kind: row.kind,
    description: row.description,
    unit_price_cents: row.unitPriceCents,
    list_price_cents: row.listPriceCents,
    currency: row.currency,
    published: row.published,
    device_limit: row.deviceLimit,
    purchase_url: row.purchaseUrl,
    created_at: row.createdAt.toISOString(),
  };
}

export async function createProduct(db: Database, rawInput: CreateProductInput): Promise<ProductRecord> {
  const input = parseInput(CreateProductInput, rawInput);
  try {
    const [row] = await db
      .insert(products)
      .values({
        name: input.name,
        slug: input.slug ?? null,
        kind: input.kind,
        description: input.description ?? null,
        unitPriceCents: input.unitPriceCents,
        listPriceCents: input.listPriceCents ?? null,
        currency: input.currency,
        published: input.published,
        deviceLimit: input.deviceLimit ?? null,
      })
      .returning();
    return toProductRecord(row as ProductRow);
  } catch (error) {
    if (isUniqueViolation(error, "products_slug_key")) {
      throw new DomainError("conflict", `A product with the slug ${input.slug} already exists.`);
    }
    throw error;
  }
}

/** A page people are sent to from Buy and Renew: a web address, nothing a browser would run. */
const PurchaseUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "an http or https URL");

export const UpdateProductInput = z
  .object({
    id: z.number().int().positive(),
    /** A number of devices, or null for no limit. Seated devices keep their seats when it is lowered. */
    deviceLimit: z.number().int().positive().nullable().optional(),
    /** The manual's steps, in order (setup progress counts against them). */
    manualSteps: z.array(z.string().trim().min(1).max(2000)).max(200).optional(),
    /** Where it is bought or renewed (the seller's store, a payment link), or null for nowhere: Buy and Renew. */
    purchaseUrl: PurchaseUrl.nullable().optional(),
  })
  .refine(
    (input) => input.deviceLimit !== undefined || input.manualSteps !== undefined || input.purchaseUrl !== undefined,
    { message: "change at least one field" },
  );
export type UpdateProductInput = z.input<typeof UpdateProductInput>;

const EMPTY_MANUAL = {
  summary: null,
  requirements: [],
  install_steps: [],
  verification_steps: [],
  troubleshooting: [],
};

/** `product:update`: the device limit, the manual's steps and where the product is bought. */
export async function updateProduct(
  db: Database,
  rawInput: UpdateProductInput,
): Promise<ProductRecord & { manual_steps: string[] }> {
  const input = parseInput(UpdateProductInput, rawInput);
  const [row] = await db
    .update(products)
    .set({
      ...(input.deviceLimit !== undefined ? { deviceLimit: input.deviceLimit } : {}),
      ...(input.purchaseUrl !== undefined ? { purchaseUrl: input.purchaseUrl } : {}),
      ...(input.manualSteps !== undefined
        ? {
            manual: sql`jsonb_set(coalesce(${products.manual}, ${JSON.stringify(EMPTY_MANUAL)}::jsonb), '{install_steps}', ${JSON.stringify(input.manualSteps)}::jsonb)`,
          }
        : {}),
    })
    .where(eq(products.id, input.id))
    .returning();
  if (!row) throw new DomainError("not_found", "Product not found.");
  return { ...toProductRecord(row), manual_steps: row.manual?.install_steps ?? [] };
}

/**
 * Withdraws a release: update checks, install plans, feeds and release lists stop offering it at once; the row stays
 * for the record. Yanking twice keeps the first time.
 */
export async function yankRelease(db: Database, releaseId: number) {
  const [row] = await db
    .update(schema.releases)
    .set({ yankedAt: sql`coalesce(${schema.releases.yankedAt}, now())` })
    .where(eq(schema.releases.id, releaseId))
    .returning({
      id: schema.releases.id,
      productId: schema.releases.productId,
      version: schema.releases.version,
      channel: schema.releases.channel,
      yankedAt: schema.releases.yankedAt,
    });
  if (!row) throw new DomainError("not_found", "Release not found.");
  return {
    id: row.id,
    product_id: row.productId,
    version: row.version,
    channel: row.channel,
    yanked_at: (row.yankedAt as Date).toISOString(),
  };
}
