import type { Database } from "@shelf/db";
import { sql } from "drizzle-orm";
import { DomainError } from "../../errors";
import { recordSecurityEvent } from "../../security-log";
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
  await db.transaction(async (tx) => {
    const [row] = await sqlRows<{ id: number; was_live: boolean; client_id: string; client_name: string }>(
      tx,
      sql`with before as (
          select g.id, g.revoked_at is null as was_live from oauth_grants g
          where g.id = ${grantId} and g.account_id = ${accountId} for update
        ), updated as (
          update oauth_grants g set revoked_at = coalesce(g.revoked_at, now()) from before
          where g.id = before.id returning g.id, g.client_id
        )
        select u.id, b.was_live, u.client_id, c.name as client_name
        from updated u join before b on b.id = u.id join oauth_clients c on c.id = u.client_id`,
    );
    if (!row) throw new DomainError("not_found", "Connected app not found.");
    if (row.was_live) {
      await recordSecurityEvent(tx, {
        accountId,
        kind: "app_disconnected",
        detail: { grant: row.id, client: row.client_name },
      });
    }
  });
}
