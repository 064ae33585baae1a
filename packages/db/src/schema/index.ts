export * from "./accounts";
export * from "./catalog";
export * from "./devices";
export * from "./entitlements";
export * from "./keys";
export * from "./mcp";
export * from "./relations";
export * from "./releases";
