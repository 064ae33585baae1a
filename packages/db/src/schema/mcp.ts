import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsToAccount } from "./accounts";
import { belongsToProduct } from "./catalog";
import { identityId, sha256Lookup, timestampNow } from "./columns";

export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: identityId(),
    accountId: belongsToAccount(),
    productId: belongsToProduct(),
    name: text().notNull(),
    enabled: boolean().notNull().default(true),
  },
  (t) => [uniqueIndex("mcp_servers_account_product_key").on(t.accountId, t.productId), index().on(t.productId)],
);

export const mcpTools = pgTable(
  "mcp_tools",
  {
    id: identityId(),
    mcpServerId: integer()
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    productId: belongsToProduct(),
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
    id: identityId(),
    /** SHA-256 of the session id, lowercase hex. */
    idHash: text().notNull(),
    accountId: belongsToAccount(),
    credential: text().notNull(),
    /** The protocol revision agreed at initialize. */
    protocolVersion: text().notNull(),
    clientName: text(),
    clientVersion: text(),
    createdAt: timestampNow(),
    /** Written at most once a minute while the session is used. */
    lastSeenAt: timestampNow(),
    endedAt: timestamp({ withTimezone: true }),
  },
  (t) => [...sha256Lookup("mcp_sessions_id_hash", t.idHash), index().on(t.accountId)],
);
