import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import type { Ability } from "../abilities";
import { perDatabase } from "../prepared";
import type { Credential } from "./caller";
import { hashSecret, KEY_SECRET_PATTERN } from "./key-secret";

const { apiKeys } = schema;

/** A device sign-in key dies after this long without use; each use pushes the date out (contract 5.10). */
export const DEVICE_KEY_IDLE_DAYS = 90;
/** Use is recorded at most this often per key, so ordinary requests only read. */
export const KEY_USE_WRITE_INTERVAL_MS = 60 * 60 * 1000;
/** A use from a new address is recorded sooner, but still at most this often per key. */
export const KEY_ADDRESS_WRITE_INTERVAL_MS = 60 * 1000;

/** The key lookup runs on every request. */
const keyLookup = perDatabase((db) =>
  db
    .select({
      id: apiKeys.id,
      accountId: apiKeys.accountId,
      productId: apiKeys.productId,
      kind: apiKeys.kind,
      abilities: apiKeys.abilities,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
      lastUsedAddress: apiKeys.lastUsedAddress,
    })
    .from(apiKeys)
    .where(eq(apiKeys.hash, sql.placeholder("hash")))
    .prepare("shelf_api_key_by_hash"),
);

/** Whether a bearer token has the shape of an account API key; anything else never reaches the database. */
export function looksLikeApiKey(token: string): boolean {
  return KEY_SECRET_PATTERN.test(token);
}

/**
 * Looks a key up by its SHA-256 hash. Revoked and expired keys are invalid from the very next request on:
 * nothing is cached between requests. Use (time and client address) is written at most once an hour per key, or
 * once a minute while the address changes (device keys push their idle expiry out by 90 days on that write), so
 * ordinary requests only read.
 */
export async function resolveApiKey(db: Database, token: string, clientAddress?: string): Promise<Credential> {
  const [key] = await keyLookup(db).execute({ hash: hashSecret(token) });
  const now = Date.now();
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now)) return { status: "invalid" };
  const since = key.lastUsedAt ? now - key.lastUsedAt.getTime() : Number.POSITIVE_INFINITY;
  const moved = clientAddress !== undefined && clientAddress !== key.lastUsedAddress;
  if (since >= KEY_USE_WRITE_INTERVAL_MS || (moved && since >= KEY_ADDRESS_WRITE_INTERVAL_MS)) {
    await recordKeyUse(db, key.id, key.kind, clientAddress);
  }
  return {
    status: "valid",
    caller: {
      type: "api_key",
      accountId: key.accountId,
      keyId: key.id,
      keyKind: key.kind,
      abilities: new Set(key.abilities as Ability[]),
      productId: key.productId,
    },
  };
}

async function recordKeyUse(
  db: Database,
  keyId: number,
  kind: "created" | "device",
  clientAddress: string | undefined,
): Promise<void> {
  await db
    .update(apiKeys)
    .set({
      lastUsedAt: sql`now()`,
      ...(clientAddress === undefined ? {} : { lastUsedAddress: clientAddress }),
      ...(kind === "device" ? { expiresAt: sql`now() + make_interval(days => ${DEVICE_KEY_IDLE_DAYS})` } : {}),
    })
    // Only live keys move: a revocation racing this write is never undone.
    .where(sql`${apiKeys.id} = ${keyId} and ${apiKeys.revokedAt} is null`);
}
