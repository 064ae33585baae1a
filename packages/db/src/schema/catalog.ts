import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { identityId, timestampNow } from "./columns";

export type DeliveryStrategy = "agent-skill" | "vscode-vsix" | "macos-app" | "binary" | "managed-directory" | "manual";
export type DeliveryTarget = "codex" | "claude-code" | "vscode" | "macos";
export type DeliveryPayload = {
  artifact: string | null;
  root: string | null;
  skill_manifest: string | null;
  vsix_path: string | null;
  extension_id: string | null;
  app_path: string | null;
  bundle_id: string | null;
  binary_path: string | null;
  executable_name: string | null;
};
export type DeliveryDependency = {
  kind: "executable" | "macos-version" | "architecture" | "host-application";
  name: string | null;
  version_constraint: string | null;
  architectures: string[];
  bundle_id: string | null;
};
export type ProductDelivery = {
  schema_version: number;
  strategy: DeliveryStrategy;
  payload: DeliveryPayload;
  targets: DeliveryTarget[];
  dependencies: DeliveryDependency[];
  launch: { kind: "open-app" | "reveal-managed-root" | "open-vscode" | "none" };
  requires_confirmation: boolean;
  compatibility: boolean;
};
export type Manual = {
  summary: string | null;
  requirements: string[];
  install_steps: string[];
  verification_steps: string[];
  troubleshooting: string[];
};

export const categories = pgTable("categories", {
  id: identityId(),
  parentId: integer().references((): never => categories.id as never, { onDelete: "set null" }),
  name: text().notNull(),
  active: boolean().notNull().default(true),
  visibility: text().notNull().default("public"),
});

export const tags = pgTable("tags", {
  id: identityId(),
  name: text().notNull(),
  type: text(),
  active: boolean().notNull().default(true),
});

/** A family of products (one app and its editions, say), public at /api/lineages. */
export const lineages = pgTable(
  "lineages",
  {
    id: identityId(),
    slug: text().notNull(),
    name: text().notNull(),
    description: text(),
    active: boolean().notNull().default(true),
    position: integer().notNull().default(0),
    createdAt: timestampNow(),
  },
  (t) => [uniqueIndex("lineages_slug_key").on(t.slug)],
);

export const products = pgTable(
  "products",
  {
    id: identityId(),
    slug: text(),
    name: text().notNull(),
    kind: text().notNull().default("app"),
    description: text(),
    listPriceCents: integer(),
    unitPriceCents: integer().notNull().default(0),
    currency: text().notNull().default("USD"),
    published: boolean().notNull().default(true),
    primaryCategoryId: integer().references(() => categories.id, { onDelete: "set null" }),
    contentLocale: text(),
    delivery: jsonb().$type<ProductDelivery>(),
    manual: jsonb().$type<Manual>(),
    runtime: text(),
    platforms: text().array().notNull().default(sql`'{}'::text[]`),
    thumbnailHtml: text(),
    detailHtml: text(),
    contentCss: text(),
    heroPath: text(),
    heroAlt: text(),
    gallery: jsonb().$type<unknown[]>().notNull().default([]),
    videos: jsonb().$type<Record<string, unknown>[]>().notNull().default([]),
    usagePath: text(),
    architecturePath: text(),
    aiPromptPath: text(),
    deviceLimit: integer(),
    /** Where the product is bought or renewed (the seller's store, a payment link): the pages' Buy and Renew. */
    purchaseUrl: text(),
    lineageId: integer().references(() => lineages.id, { onDelete: "set null" }),
    createdAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("products_slug_key").on(t.slug),
    index().on(t.lineageId),
    // License checks name an app by its bundle id.
    index("products_bundle_id_idx").on(sql`(${t.delivery}->'payload'->>'bundle_id')`),
    check("products_prices_non_negative", sql`${t.unitPriceCents} >= 0 AND coalesce(${t.listPriceCents}, 0) >= 0`),
    check("products_device_limit_positive", sql`${t.deviceLimit} IS NULL OR ${t.deviceLimit} > 0`),
  ],
);

/** The product a row belongs to (its `product_id`): deleting the product deletes the row. */
export const belongsToProduct = () =>
  integer()
    .notNull()
    .references(() => products.id, { onDelete: "cascade" });

export const productCategories = pgTable(
  "product_categories",
  {
    productId: belongsToProduct(),
    categoryId: integer()
      .notNull()
      .references(() => categories.id, { onDelete: "cascade" }),
    position: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.categoryId] }), index().on(t.categoryId)],
);

export const productTags = pgTable(
  "product_tags",
  {
    productId: belongsToProduct(),
    tagId: integer()
      .notNull()
      .references(() => tags.id, { onDelete: "cascade" }),
    position: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.tagId] }), index().on(t.tagId)],
);

export const productSetupOutputs = pgTable(
  "product_setup_outputs",
  {
    id: identityId(),
    productId: belongsToProduct(),
    position: integer().notNull().default(0),
    title: text().notNull(),
    categoryLabel: text(),
    summary: text(),
    prompt: text().notNull(),
    usageGuide: text(),
    actionUrl: text(),
  },
  (t) => [index().on(t.productId, t.position)],
);

export const productInstallAssets = pgTable(
  "product_install_assets",
  {
    id: identityId(),
    productId: belongsToProduct(),
    position: integer().notNull().default(0),
    platform: text().notNull(),
    label: text().notNull(),
    path: text().notNull(),
    /** The path's segments percent-encoded as in a URL (migration 0001), kept by the database for download links. */
    urlPath: text().notNull().generatedAlwaysAs(sql`shelf_encode_uri_path(path)`),
  },
  (t) => [index().on(t.productId, t.position)],
);

/**
 * Files of a product served at `/api/products/{product}/content-assets/{path}` (install scripts, images, manuals):
 * the path is the asset's name, never a filesystem path; the bytes live in the artifact store under `storageKey`.
 */
export const productContentAssets = pgTable(
  "product_content_assets",
  {
    id: identityId(),
    productId: belongsToProduct(),
    path: text().notNull(),
    storageKey: text().notNull(),
    sha256: text().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    contentType: text().notNull(),
    createdAt: timestampNow(),
    updatedAt: timestampNow(),
  },
  (t) => [
    uniqueIndex("product_content_assets_product_path_key").on(t.productId, t.path),
    check("product_content_assets_sha256_hex", sql`${t.sha256} ~ '^[0-9a-f]{64}$'`),
    check("product_content_assets_size", sql`${t.size} >= 0`),
  ],
);
