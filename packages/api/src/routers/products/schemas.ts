import { releaseChannels } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime, hasControlCharacter, IdParam } from "../../schemas/common";
import { ProductDeliveryData, ProductManualData } from "../../schemas/product-delivery";

export const ProductCategoryData = z
  .object({
    id: z.number().int(),
    parent_id: z.number().int().nullable(),
    name: z.string(),
    active: z.boolean(),
    visibility: z.string(),
  })
  .meta({ id: "ProductCategoryData" });

export const ProductTagData = z
  .object({ id: z.number().int(), name: z.string(), type: z.string().nullable(), active: z.boolean() })
  .meta({ id: "ProductTagData" });

export const ProductApiData = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    list_price_cents: z.number().int().nullable(),
    unit_price_cents: z.number().int(),
    currency: z.string(),
    active: z.boolean(),
    entitled: z.boolean(),
    primary_category: ProductCategoryData.nullable(),
    categories: z.array(ProductCategoryData),
    tags: z.array(ProductTagData),
    content_locale: z.string().nullable(),
    /** Where the seller sells it (their store, a payment link): what Buy and Renew lead to; null when nowhere. */
    purchase_url: z.string().nullable(),
  })
  .meta({ id: "ProductApiData" });
export type ProductApiData = z.infer<typeof ProductApiData>;

export const ProductDetailApiData = z
  .object({
    product: ProductApiData,
    delivery: ProductDeliveryData,
    detail_html: z.string().nullable(),
    manual: ProductManualData.nullable(),
    runtime: z.string().nullable(),
    platforms: z.array(z.string()),
    hero_path: z.string().nullable(),
    hero_alt: z.string().nullable(),
    gallery: z.array(z.unknown()),
    videos: z.array(z.record(z.string(), z.unknown())),
    usage_path: z.string().nullable(),
    architecture_path: z.string().nullable(),
    ai_prompt_path: z.string().nullable(),
  })
  .meta({ id: "ProductDetailApiData" });

export const ProductReleaseData = z
  .object({
    id: z.number().int(),
    product_id: z.number().int(),
    version: z.string(),
    /** The channel it was published on (stable, beta, alpha or dev); not in the contract's list, added for pages. */
    channel: z.string(),
    notes_ko: z.string().nullable(),
    notes_en: z.string().nullable(),
    notes: z.string().nullable(),
    released_at: DateTime,
  })
  .meta({ id: "ProductReleaseData" });

export const ProductUpdateApiData = z
  .object({
    product_id: z.number().int(),
    current_version: z.string(),
    released_at: DateTime.nullable(),
    changelog: z.string().nullable(),
    source_ref: z.string().nullable(),
    artifact_sha256: z.string().nullable(),
    artifact_size: z.number().int().nullable(),
    update_available: z.boolean(),
    download_allowed: z.boolean(),
    download_url: z.string(),
  })
  .meta({ id: "ProductUpdateApiData" });

export const productSorts = ["name", "-name", "newest", "oldest", "price", "-price"] as const;

export const ListProductsInput = z.object({
  category_id: IdParam.optional(),
  tag_id: IdParam.optional(),
  q: z.string().trim().max(200).optional(),
  platform: z.string().trim().min(1).max(50).optional(),
  sort: z.enum(productSorts).optional(),
});
export type ListProductsInput = z.infer<typeof ListProductsInput>;

/** Versions like 1, 1.2, 1.2.3, v1.2.3-beta.1 or 1.2.3+45. */
export const ClientVersion = z
  .string()
  .trim()
  .max(64)
  .regex(/^v?\d+(\.\d+){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/, "must be a version like 1.2.3");

export const UpdatesInput = z.object({
  version: ClientVersion.optional(),
  /** The release channel the client follows (default stable): beta also sees stable, alpha beta and stable, dev all. */
  channel: z.enum(releaseChannels).optional(),
});

export const InstallInput = z.object({
  /** The channel the client follows (default stable): beta also sees stable, alpha beta and stable, dev all. */
  channel: z.enum(releaseChannels).optional(),
});

export const ProductInstallData = z
  .object({
    product_id: z.number().int(),
    kind: z.string(),
    name: z.string(),
    version: z.string(),
    build: z.string().nullable(),
    channel: z.enum(releaseChannels).nullable(),
    filename: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number().int().min(0),
    format: z.string(),
    download_url: z.url(),
    download_expires_at: DateTime,
    target: z.string(),
    slug: z.string().nullable(),
  })
  .meta({ id: "ProductInstallData" });
export type ProductInstallData = z.infer<typeof ProductInstallData>;

/**
 * A content asset's path: names separated by single slashes, never absolute, never `.` or `..`, no backslashes or
 * control characters. It names a stored asset; it is never joined into a filesystem path.
 */
export const ContentAssetPath = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (path) =>
      !path.includes("\\") &&
      !hasControlCharacter(path) &&
      path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".."),
    "must be a relative path of names separated by /, without . or .. segments, backslashes or control characters",
  );

export const ContentAssetData = z
  .object({
    path: z.string(),
    size: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    content_type: z.string(),
    updated_at: DateTime,
    /** The asset itself, with the same key. */
    download_url: z.url(),
  })
  .meta({ id: "ContentAssetData" });
