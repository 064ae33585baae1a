import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { sql } from "drizzle-orm";
import type { Ability } from "../abilities";
import { preparedRows } from "../sql-text";
import type { Credential } from "./caller";
import { hashSecret, KEY_SECRET_PATTERN } from "./key-secret";

const { apiKeys } = schema;

/** A device sign-in key dies after this long without use; each use pushes the date out (contract 5.10). */
export const DEVICE_KEY_IDLE_DAYS = 90;
/** Use is recorded at most this often per key, so ordinary requests only read. */
export const KEY_USE_WRITE_INTERVAL_MS = 60 * 60 * 1000;
/** A use from a new address is recorded sooner, but still at most this often per key. */
export const KEY_ADDRESS_WRITE_INTERVAL_MS = 60 * 1000;

/**
 * The key lookup runs on every request: one prepared statement sent straight to the driver (drizzle's query
 * builder, result mapping and tracing spans cost about 15 µs a request here, measured with `bench/edge-paired.ts`).
 * Whether the key is dead, and how long since its use was last written, are decided by the database's clock.
 */
const KEY_SQL = `select id, account_id, product_id, kind, abilities,
    revoked_at is not null or (expires_at is not null and expires_at <= now()) as dead,
    (extract(epoch from now() - last_used_at) * 1000)::float8 as since_ms, last_used_address
  from api_keys where hash = $1`;

type KeyRow = {
  id: number;
  account_id: number;
  product_id: number | null;
  kind: "created" | "device";
  abilities: string[];
  dead: boolean;
  since_ms: number | null;
  last_used_address: string | null;
};

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
  const [key] = await preparedRows<KeyRow>(db, KEY_SQL, [hashSecret(token)]);
  if (!key || key.dead) return { status: "invalid" };
  const since = key.since_ms ?? Number.POSITIVE_INFINITY;
  const moved = clientAddress !== undefined && clientAddress !== key.last_used_address;
  if (since >= KEY_USE_WRITE_INTERVAL_MS || (moved && since >= KEY_ADDRESS_WRITE_INTERVAL_MS)) {
    await recordKeyUse(db, key.id, key.kind, clientAddress);
  }
  return {
    status: "valid",
    caller: {
      type: "api_key",
      accountId: key.account_id,
      keyId: key.id,
      keyKind: key.kind,
      abilities: new Set(key.abilities as Ability[]),
      productId: key.product_id,
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
