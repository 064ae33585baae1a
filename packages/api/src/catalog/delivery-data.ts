/**
 * A product's delivery recipe and kind as answers show them: the products' detail, the library and the pages.
 */
import type { schema } from "@shelf/db";
import type { ProductDeliveryData } from "../schemas/product-delivery";

type Product = typeof schema.products.$inferSelect;

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
