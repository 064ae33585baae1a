import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import type { Ability } from "../abilities";
import { perDatabase } from "../prepared";
import { hashKeySecret } from "../routers/keys/secret";
import { DEVICE_KEY_IDLE_DAYS, KEY_USE_WRITE_INTERVAL_MS } from "../routers/keys/service";

const { apiKeys } = schema;

/**
 * Who is calling, resolved once per request. Account API keys now; OAuth access tokens (account MCP only) and
 * signed-in people (web pages) join this union as their issues land, and every procedure decides by `type`.
 */
export type Caller = {
  type: "api_key";
  accountId: number;
  keyId: number;
  keyKind: "created" | "device";
  abilities: ReadonlySet<Ability>;
  /** Set for a product-scoped key: it may touch only this product. */
  productId: number | null;
};

/** What the request presented, before any endpoint decides whether it needed it. */
export type Credential = { status: "none" } | { status: "invalid" } | { status: "valid"; caller: Caller };

/** Accepts only `Authorization: Bearer <key>`; a key anywhere else (query string, cookie) is never read. */
export function bearerToken(authorization: string | null | undefined): string | null | undefined {
  if (authorization == null || authorization.trim() === "") return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}

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
    })
    .from(apiKeys)
    .where(eq(apiKeys.hash, sql.placeholder("hash")))
    .prepare("shelf_api_key_by_hash"),
);

/**
 * Looks a key up by its SHA-256 hash. Revoked and expired keys are invalid from the very next request on:
 * nothing is cached between requests. Use is written at most once an hour per key (device keys push their
 * idle expiry out by 90 days on that write), so ordinary requests only read.
 */
export async function resolveCredential(db: Database, authorization: string | null | undefined): Promise<Credential> {
  const token = bearerToken(authorization);
  if (token === undefined) return { status: "none" };
  if (token === null || token.length > 200) return { status: "invalid" };
  const [key] = await keyLookup(db).execute({ hash: hashKeySecret(token) });
  const now = Date.now();
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now)) return { status: "invalid" };
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() >= KEY_USE_WRITE_INTERVAL_MS) {
    await recordKeyUse(db, key.id, key.kind);
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

async function recordKeyUse(db: Database, keyId: number, kind: "created" | "device"): Promise<void> {
  await db
    .update(apiKeys)
    .set({
      lastUsedAt: sql`now()`,
      ...(kind === "device" ? { expiresAt: sql`now() + make_interval(days => ${DEVICE_KEY_IDLE_DAYS})` } : {}),
    })
    // Only live keys move: a revocation racing this write is never undone.
    .where(sql`${apiKeys.id} = ${keyId} and ${apiKeys.revokedAt} is null`);
}
