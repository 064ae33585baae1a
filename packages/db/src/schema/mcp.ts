import { boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { products } from "./catalog";

export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    productId: integer()
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    name: text().notNull(),
    enabled: boolean().notNull().default(true),
  },
  (t) => [uniqueIndex("mcp_servers_account_product_key").on(t.accountId, t.productId), index().on(t.productId)],
);

export const mcpTools = pgTable(
  "mcp_tools",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    mcpServerId: integer()
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    productId: integer()
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    name: text().notNull(),
    enabled: boolean().notNull().default(true),
  },
  (t) => [uniqueIndex("mcp_tools_server_name_key").on(t.mcpServerId, t.name)],
);
