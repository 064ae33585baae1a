import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
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

/**
 * A session of the account MCP endpoint (Streamable HTTP's `Mcp-Session-Id`), kept here rather than in a process so
 * that any instance serves any request of it. Only the id's SHA-256 is stored. A session belongs to the credential
 * that opened it (`credential`, e.g. `key:12` or `token:7`): another credential naming it finds nothing.
 */
export const mcpSessions = pgTable(
  "mcp_sessions",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    /** SHA-256 of the session id, lowercase hex. */
    idHash: text().notNull(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    credential: text().notNull(),
    /** The protocol revision agreed at initialize. */
    protocolVersion: text().notNull(),
    clientName: text(),
    clientVersion: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Written at most once a minute while the session is used. */
    lastSeenAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("mcp_sessions_id_hash_key").on(t.idHash),
    index().on(t.accountId),
    check("mcp_sessions_id_hash_hex", sql`${t.idHash} ~ '^[0-9a-f]{64}$'`),
  ],
);
