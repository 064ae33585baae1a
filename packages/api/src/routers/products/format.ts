import type { schema } from "@shelf/db";
import type { ProductApiData } from "./schemas";

type Category = typeof schema.categories.$inferSelect;
type Tag = typeof schema.tags.$inferSelect;
type Product = typeof schema.products.$inferSelect;

export type ProductWithTaxonomy = Product & {
  primaryCategory: Category | null;
  categories: { category: Category }[];
  tags: { tag: Tag }[];
};

export function toCategoryData(category: Category) {
  return {
    id: category.id,
    parent_id: category.parentId,
    name: category.name,
    active: category.active,
    visibility: category.visibility,
  };
}

export function toProductApiData(product: ProductWithTaxonomy, entitled: boolean): ProductApiData {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    list_price_cents: product.listPriceCents,
    unit_price_cents: product.unitPriceCents,
    currency: product.currency,
    active: product.published,
    entitled,
    primary_category: product.primaryCategory ? toCategoryData(product.primaryCategory) : null,
    categories: product.categories.map(({ category }) => toCategoryData(category)),
    tags: product.tags.map(({ tag }) => ({ id: tag.id, name: tag.name, type: tag.type, active: tag.active })),
    content_locale: product.contentLocale,
    purchase_url: product.purchaseUrl,
  };
}
