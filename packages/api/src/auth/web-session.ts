import type { Database, Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { accountAbilities } from "../abilities";
import { recordSecurityEvent } from "../security-log";
import type { SessionCaller } from "./caller";
import { hashSecret, randomSecret } from "./key-secret";

const { webSessions, accounts } = schema;

/** A session lasts this long from sign-in, however much it is used; then the person signs in again. */
export const WEB_SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
/** Use is written at most this often per session, so page views only read. */
const LAST_SEEN_WRITE_INTERVAL_MS = 5 * 60 * 1000;

export type WebSessionAccount = {
  /** The session's row: names it to the procedures (a password change keeps it) without its secret. */
  sessionId: number;
  accountId: number;
  email: string;
  name: string | null;
  /** Whether the account's address is verified: unverified, the pages ask for it in a banner. */
  emailVerified: boolean;
};

/**
 * A new session for an account that just proved who it is. Its secret goes into the sealed session cookie only; its
 * row id names it everywhere else. The sign-in is written to the security log with the session, in one transaction.
 */
export async function startWebSession(
  db: Executor,
  accountId: number,
  options: { address?: string | null; userAgent?: string | null } = {},
): Promise<{ secret: string; sessionId: number; expiresAt: Date }> {
  const secret = randomSecret();
  const expiresAt = new Date(Date.now() + WEB_SESSION_MAX_AGE_SECONDS * 1000);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(webSessions)
      .values({ accountId, tokenHash: hashSecret(secret), expiresAt })
      .returning({ id: webSessions.id });
    const sessionId = (row as { id: number }).id;
    await recordSecurityEvent(tx, {
      accountId,
      kind: "sign_in",
      detail: { session: sessionId, ...(options.userAgent ? { user_agent: options.userAgent.slice(0, 200) } : {}) },
      address: options.address,
    });
    return { secret, sessionId, expiresAt };
  });
}

/**
 * The account behind a live session, or null when the session was ended (sign-out, a password change), expired, or
 * never existed. Nothing is cached: an ended session is refused from the very next request on, on every instance.
 */
export async function webSessionAccount(db: Database, secret: string): Promise<WebSessionAccount | null> {
  if (secret.length === 0 || secret.length > 128) return null;
  const [row] = await db
    .select({
      id: webSessions.id,
      accountId: webSessions.accountId,
      lastSeenAt: webSessions.lastSeenAt,
      email: accounts.email,
      name: accounts.name,
      emailVerifiedAt: accounts.emailVerifiedAt,
    })
    .from(webSessions)
    .innerJoin(accounts, eq(accounts.id, webSessions.accountId))
    .where(
      and(
        eq(webSessions.tokenHash, hashSecret(secret)),
        isNull(webSessions.revokedAt),
        gt(webSessions.expiresAt, sql`now()`),
      ),
    );
  if (!row) return null;
  if (Date.now() - row.lastSeenAt.getTime() >= LAST_SEEN_WRITE_INTERVAL_MS) {
    await db.update(webSessions).set({ lastSeenAt: sql`now()` }).where(eq(webSessions.id, row.id));
  }
  return {
    sessionId: row.id,
    accountId: row.accountId,
    email: row.email,
    name: row.name,
    emailVerified: row.emailVerifiedAt !== null,
  };
}

/**
 * Ends sessions of an account: all of them ("sign out everywhere", a password reset), all but the one named (a
 * password change keeps the person who made it signed in), or only the one named (signing out in one browser).
 * Returns how many were live.
 */
export async function endWebSessions(
  db: Executor,
  accountId: number,
  options: { except?: number; only?: number } = {},
): Promise<number> {
  const ended = await db
    .update(webSessions)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(webSessions.accountId, accountId),
        isNull(webSessions.revokedAt),
        options.except === undefined ? undefined : ne(webSessions.id, options.except),
        options.only === undefined ? undefined : eq(webSessions.id, options.only),
      ),
    )
    .returning({ id: webSessions.id });
  return ended.length;
}

/** The caller a signed-in person is to the procedures: every account ability, never a key's limits. */
export function sessionCaller(accountId: number, sessionId: number): SessionCaller {
  return {
    type: "session",
    accountId,
    sessionId,
    abilities: new Set(accountAbilities),
    productId: null,
  };
}
