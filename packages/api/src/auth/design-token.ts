import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq, sql } from "drizzle-orm";
import { perDatabase } from "../prepared";
import type { Credential } from "./caller";
import { hashSecret } from "./key-secret";

const { designTokens } = schema;

/** Design tokens read `<brand>_design_` and 32 base58 characters: never mistaken for an account key (`<brand>_`). */
export const DESIGN_TOKEN_PATTERN = /^[a-z][a-z0-9]{1,11}_design_[1-9A-HJ-NP-Za-km-z]{32}$/;

export function looksLikeDesignToken(token: string): boolean {
  return DESIGN_TOKEN_PATTERN.test(token);
}

/** Use is written at most this often per token, so ordinary requests only read. */
const USE_WRITE_INTERVAL_MS = 60 * 60 * 1000;

const tokenLookup = perDatabase((db) =>
  db
    .select({
      id: designTokens.id,
      name: designTokens.name,
      roles: designTokens.roles,
      expiresAt: designTokens.expiresAt,
      revokedAt: designTokens.revokedAt,
      lastUsedAt: designTokens.lastUsedAt,
    })
    .from(designTokens)
    .where(eq(designTokens.hash, sql.placeholder("hash")))
    .prepare("shelf_design_token_by_hash"),
);

/** A design token by its SHA-256; revoked and expired tokens are invalid from the very next request on. */
export async function resolveDesignToken(db: Database, token: string): Promise<Credential> {
  const [row] = await tokenLookup(db).execute({ hash: hashSecret(token) });
  const now = Date.now();
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now)) return { status: "invalid" };
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= USE_WRITE_INTERVAL_MS) {
    await db.update(designTokens).set({ lastUsedAt: sql`now()` }).where(eq(designTokens.id, row.id));
  }
  return {
    status: "valid",
    caller: { type: "design_token", tokenId: row.id, name: row.name, roles: new Set(row.roles) },
  };
}
