export { createDb, type Database, type DbHandle } from "./client";
export * as schema from "./schema";
