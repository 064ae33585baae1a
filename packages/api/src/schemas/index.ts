/**
 * Every shared zod schema of the contract, for pages and the command-line client: this entry point reaches only
 * zod and pure modules, never the database or the server (a test walks its imports).
 */
export * from "../abilities";
export * from "../routers/accounts/schemas";
export * from "../routers/entitlements/schemas";
export * from "../routers/keys/schemas";
export * from "../routers/library/schemas";
export * from "../routers/products/schemas";
export * from "./common";
