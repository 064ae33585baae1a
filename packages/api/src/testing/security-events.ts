import { type Database, schema } from "@shelf/db";
import { eq } from "drizzle-orm";

/** The kinds of an account's security log events, oldest first. */
export async function securityEventKinds(db: Database, accountId: number): Promise<string[]> {
  const rows = await db
    .select({ kind: schema.securityEvents.kind })
    .from(schema.securityEvents)
    .where(eq(schema.securityEvents.accountId, accountId))
    .orderBy(schema.securityEvents.id);
  return rows.map((row) => row.kind);
}
