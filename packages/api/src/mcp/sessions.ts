import { type Database, schema } from "@shelf/db";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { hashSecret, randomSecret } from "../auth/key-secret";

const { mcpSessions } = schema;

/** A session unused this long is over: its client starts a new one with `initialize`. */
export const MCP_SESSION_IDLE_HOURS = 24;

/** Session ids as clients send them back: the 43 base64url characters this server makes, nothing else. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** Opens a session for the credential that sent `initialize`; the id is returned once, only its hash kept. */
export async function openMcpSession(
  db: Database,
  input: {
    accountId: number;
    credential: string;
    protocolVersion: string;
    clientName?: string | null;
    clientVersion?: string | null;
  },
): Promise<string> {
  const sessionId = randomSecret();
  await db.insert(mcpSessions).values({
    idHash: hashSecret(sessionId),
    accountId: input.accountId,
    credential: input.credential,
    protocolVersion: input.protocolVersion,
    clientName: input.clientName?.slice(0, 200) ?? null,
    clientVersion: input.clientVersion?.slice(0, 100) ?? null,
  });
  return sessionId;
}

/**
 * Whether a session id names a live session of this credential: unknown, ended, idle too long, or another
 * credential's are all "not found" (the client then starts over). Use is recorded at most once a minute.
 */
export async function touchMcpSession(db: Database, sessionId: string, credential: string): Promise<boolean> {
  if (!SESSION_ID.test(sessionId)) return false;
  const live = and(
    eq(mcpSessions.idHash, hashSecret(sessionId)),
    eq(mcpSessions.credential, credential),
    isNull(mcpSessions.endedAt),
    gt(mcpSessions.lastSeenAt, sql`now() - make_interval(hours => ${MCP_SESSION_IDLE_HOURS})`),
  );
  const [row] = await db
    .select({ id: mcpSessions.id, stale: sql<boolean>`${mcpSessions.lastSeenAt} < now() - interval '1 minute'` })
    .from(mcpSessions)
    .where(live);
  if (!row) return false;
  if (row.stale) await db.update(mcpSessions).set({ lastSeenAt: sql`now()` }).where(eq(mcpSessions.id, row.id));
  return true;
}

/** Ends a session (HTTP DELETE); false when there was no live session of this credential to end. */
export async function endMcpSession(db: Database, sessionId: string, credential: string): Promise<boolean> {
  if (!SESSION_ID.test(sessionId)) return false;
  const ended = await db
    .update(mcpSessions)
    .set({ endedAt: sql`now()` })
    .where(
      and(
        eq(mcpSessions.idHash, hashSecret(sessionId)),
        eq(mcpSessions.credential, credential),
        isNull(mcpSessions.endedAt),
      ),
    )
    .returning({ id: mcpSessions.id });
  return ended.length > 0;
}
