import type { Database } from "@shelf/db";
import { sql } from "drizzle-orm";
import { DomainError } from "../../errors";
import { isoSql, sqlRows } from "../../sql-text";
import type { ConnectedAppData } from "./schemas";

type GrantRow = Omit<ConnectedAppData, "redirect_host"> & { redirect_uri: string };

function redirectHost(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

/** The account's live OAuth grants, most recently used first. */
export async function listConnectedApps(db: Database, accountId: number): Promise<ConnectedAppData[]> {
  const rows = await sqlRows<GrantRow>(
    db,
    sql`select g.id, g.client_id, c.name as client_name, g.redirect_uri, g.scopes,
        ${sql.raw(isoSql("g.created_at"))} as created_at, ${sql.raw(isoSql("g.last_used_at"))} as last_used_at
      from oauth_grants g join oauth_clients c on c.id = g.client_id
      where g.account_id = ${accountId} and g.revoked_at is null
      order by coalesce(g.last_used_at, g.created_at) desc, g.id desc`,
  );
  return rows.map(({ redirect_uri, ...row }) => ({ ...row, redirect_host: redirectHost(redirect_uri) }));
}

/**
 * Disconnects an app: its grant is revoked, and every token issued under it stops working with it. Disconnecting
 * twice is the same as once.
 */
export async function disconnectApp(db: Database, accountId: number, grantId: number): Promise<void> {
  const [row] = await sqlRows<{ id: number }>(
    db,
    sql`update oauth_grants set revoked_at = coalesce(revoked_at, now())
      where id = ${grantId} and account_id = ${accountId} returning id`,
  );
  if (!row) throw new DomainError("not_found", "Connected app not found.");
}
