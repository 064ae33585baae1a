import { relations } from "drizzle-orm";
import { accounts } from "./accounts";
import {
  categories,
  productCategories,
  productInstallAssets,
  productSetupOutputs,
  products,
  productTags,
  tags,
} from "./catalog";
import { orderItems, orders, paymentMethods, subscriptions } from "./commerce";
import { setupProgress } from "./devices";
import { bundleProducts, bundles, entitlements } from "./entitlements";
import { apiKeys } from "./keys";
import { mcpServers, mcpTools } from "./mcp";
import { releases } from "./releases";

export const accountsRelations = relations(accounts, ({ many }) => ({
  entitlements: many(entitlements),
  apiKeys: many(apiKeys),
}));

export const productsRelations = relations(products, ({ one, many }) => ({
  primaryCategory: one(categories, { fields: [products.primaryCategoryId], references: [categories.id] }),
  categories: many(productCategories),
  tags: many(productTags),
  setupOutputs: many(productSetupOutputs),
  installAssets: many(productInstallAssets),
  releases: many(releases),
  mcpServers: many(mcpServers),
  setupProgress: many(setupProgress),
  bundles: many(bundleProducts),
}));

export const productCategoriesRelations = relations(productCategories, ({ one }) => ({
  product: one(products, { fields: [productCategories.productId], references: [products.id] }),
  category: one(categories, { fields: [productCategories.categoryId], references: [categories.id] }),
}));

export const productTagsRelations = relations(productTags, ({ one }) => ({
  product: one(products, { fields: [productTags.productId], references: [products.id] }),
  tag: one(tags, { fields: [productTags.tagId], references: [tags.id] }),
}));

export const productSetupOutputsRelations = relations(productSetupOutputs, ({ one }) => ({
  product: one(products, { fields: [productSetupOutputs.productId], references: [products.id] }),
}));

export const productInstallAssetsRelations = relations(productInstallAssets, ({ one }) => ({
  product: one(products, { fields: [productInstallAssets.productId], references: [products.id] }),
}));

export const releasesRelations = relations(releases, ({ one }) => ({
  product: one(products, { fields: [releases.productId], references: [products.id] }),
}));

export const entitlementsRelations = relations(entitlements, ({ one }) => ({
  account: one(accounts, { fields: [entitlements.accountId], references: [accounts.id] }),
  product: one(products, { fields: [entitlements.productId], references: [products.id] }),
  bundle: one(bundles, { fields: [entitlements.bundleId], references: [bundles.id] }),
  orderItem: one(orderItems, { fields: [entitlements.orderItemId], references: [orderItems.id] }),
}));

export const ordersRelations = relations(orders, ({ one, many }) => ({
  items: many(orderItems),
  subscription: one(subscriptions, { fields: [orders.subscriptionId], references: [subscriptions.id] }),
}));

export const orderItemsRelations = relations(orderItems, ({ one, many }) => ({
  order: one(orders, { fields: [orderItems.orderId], references: [orders.id] }),
  product: one(products, { fields: [orderItems.productId], references: [products.id] }),
  entitlements: many(entitlements),
}));

export const subscriptionsRelations = relations(subscriptions, ({ one }) => ({
  product: one(products, { fields: [subscriptions.productId], references: [products.id] }),
  order: one(orders, { fields: [subscriptions.orderId], references: [orders.id] }),
  paymentMethod: one(paymentMethods, { fields: [subscriptions.paymentMethodId], references: [paymentMethods.id] }),
}));

export const bundlesRelations = relations(bundles, ({ many }) => ({
  products: many(bundleProducts),
}));

export const bundleProductsRelations = relations(bundleProducts, ({ one }) => ({
  bundle: one(bundles, { fields: [bundleProducts.bundleId], references: [bundles.id] }),
  product: one(products, { fields: [bundleProducts.productId], references: [products.id] }),
}));

export const apiKeysRelations = relations(apiKeys, ({ one }) => ({
  account: one(accounts, { fields: [apiKeys.accountId], references: [accounts.id] }),
  product: one(products, { fields: [apiKeys.productId], references: [products.id] }),
}));

export const setupProgressRelations = relations(setupProgress, ({ one }) => ({
  product: one(products, { fields: [setupProgress.productId], references: [products.id] }),
}));

export const mcpServersRelations = relations(mcpServers, ({ one, many }) => ({
  product: one(products, { fields: [mcpServers.productId], references: [products.id] }),
  tools: many(mcpTools),
}));

export const mcpToolsRelations = relations(mcpTools, ({ one }) => ({
  server: one(mcpServers, { fields: [mcpTools.mcpServerId], references: [mcpServers.id] }),
}));
