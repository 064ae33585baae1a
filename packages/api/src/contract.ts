/**
 * Every shared zod schema of the contract, for pages and the command-line client: this entry point reaches only
 * zod and pure modules, never the database or the server (a test walks its imports).
 */
export * from "./abilities";
export * from "./routers/accounts/schemas";
export * from "./routers/client-config/schemas";
export * from "./routers/design-collect/schemas";
export * from "./routers/design-docs/schemas";
export * from "./routers/design-manifest/schemas";
export * from "./routers/device-sign-in/schemas";
export * from "./routers/devices/schemas";
export * from "./routers/entitlements/schemas";
export * from "./routers/keys/schemas";
export * from "./routers/library/schemas";
export * from "./routers/licensing/schemas";
export * from "./routers/orders/schemas";
export * from "./routers/products/schemas";
export * from "./routers/public/schemas";
export * from "./routers/reports/schemas";
export * from "./routers/setup/schemas";
export * from "./routers/subscriptions/schemas";
export * from "./schemas/api-key";
export * from "./schemas/capture-meta";
export * from "./schemas/client-policy";
export * from "./schemas/common";
export * from "./schemas/design-document";
export * from "./schemas/design-page";
export * from "./schemas/order";
export * from "./schemas/product-delivery";
export * from "./schemas/setup-progress";
export * from "./schemas/upload";
