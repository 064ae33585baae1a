import { z } from "zod";
import { ProductDeliveryData, ProductManualData } from "../../schemas/product-delivery";
import { ProductSetupProgressData } from "../../schemas/setup-progress";

export const ProductSetupOutputData = z
  .object({
    id: z.number().int(),
    title: z.string(),
    category_label: z.string().nullable(),
    summary: z.string().nullable(),
    prompt: z.string(),
    usage_guide: z.string().nullable(),
    action_url: z.string().nullable(),
  })
  .meta({ id: "ProductSetupOutputData" });

export const ProductInstallAssetData = z
  .object({ platform: z.string(), label: z.string(), path: z.string(), download_url: z.string() })
  .meta({ id: "ProductInstallAssetData" });

export const ProductSetupData = z
  .object({
    id: z.number().int(),
    name: z.string(),
    type_label: z.string(),
    description: z.string().nullable(),
    delivery: ProductDeliveryData,
    manual: ProductManualData.nullable(),
    outputs: z.array(ProductSetupOutputData),
    install_assets: z.array(ProductInstallAssetData),
    runtime: z.string().nullable(),
    platforms: z.array(z.string()),
  })
  .meta({ id: "ProductSetupData" });

export const McpToolData = z
  .object({
    id: z.number().int(),
    mcp_server_id: z.number().int(),
    product_id: z.number().int(),
    name: z.string(),
    enabled: z.boolean(),
  })
  .meta({ id: "McpToolData" });

export const McpServerData = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    product_id: z.number().int(),
    name: z.string(),
    enabled: z.boolean(),
    product_name: z.string(),
    tools: z.array(McpToolData),
  })
  .meta({ id: "McpServerData" });

export const BundleRefData = z
  .object({
    available: z.boolean(),
    sha256: z.string().nullable(),
    size: z.number().int().nullable(),
    download_url: z.string().nullable(),
  })
  .meta({ id: "BundleRefData" });

export const LibraryApiItemData = z
  .object({
    access_source: z.string(),
    thumbnail_html: z.string().nullable(),
    hero_path: z.string().nullable(),
    hero_alt: z.string().nullable(),
    product: ProductSetupData,
    setup_progress: ProductSetupProgressData,
    mcp_server: McpServerData.nullable(),
    bundle: BundleRefData.nullable(),
  })
  .meta({ id: "LibraryApiItemData" });

export const LibraryApiData = z.object({ items: z.array(LibraryApiItemData) }).meta({ id: "LibraryApiData" });
export type LibraryApiData = z.infer<typeof LibraryApiData>;

export const EndedAccessInput = z.object({ product: z.number().int().positive() });

/** The last entitlement an account held to a product it holds no longer: when and how its access ended. */
export const EndedAccessData = z.object({
  product_id: z.number().int(),
  product_name: z.string(),
  grant_type: z.string(),
  access_expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** Where it is bought again or renewed; null when the seller has not said. */
  purchase_url: z.string().nullable(),
});
export type EndedAccessData = z.infer<typeof EndedAccessData>;
