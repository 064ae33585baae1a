import type { schema } from "@shelf/db";
import type { ProductApiData, ProductDeliveryData } from "./schemas";

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

export const emptyPayload: ProductDeliveryData["payload"] = {
  artifact: null,
  root: null,
  skill_manifest: null,
  vsix_path: null,
  extension_id: null,
  app_path: null,
  bundle_id: null,
  binary_path: null,
  executable_name: null,
};

/** A product without a delivery recipe is installed by hand, following its manual. */
export function toDeliveryData(delivery: Product["delivery"]): ProductDeliveryData {
  if (!delivery) {
    return {
      schema_version: 1,
      strategy: "manual",
      payload: emptyPayload,
      targets: [],
      dependencies: [],
      launch: { kind: "none" },
      requires_confirmation: false,
      compatibility: true,
    };
  }
  return { ...delivery, payload: { ...emptyPayload, ...delivery.payload } };
}

export const typeLabels: Record<string, string> = {
  app: "App",
  skill: "Agent skill",
  extension: "Extension",
  tool: "Command-line tool",
  template: "Template",
  course: "Course",
};

export function typeLabel(kind: string): string {
  return typeLabels[kind] ?? kind.charAt(0).toUpperCase() + kind.slice(1);
}
