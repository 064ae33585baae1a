/** The operator's design tokens: create, list, revoke. Resolving a token a request sends is `design-token.ts`. */
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { type DesignRole, designRoles } from "@shelf/db/enums";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { DomainError, parseInput, ValidationError } from "../errors";
import { isoOrNull } from "../schemas/common";
import { generateDesignTokenSecret, hashSecret, visiblePrefix } from "./key-secret";

const { designTokens } = schema;

export const CreateDesignTokenInput = z.object({
  name: z.string().trim().min(1).max(100),
  roles: z.array(z.enum(designRoles)).min(1, { error: "name at least one role" }),
  expiresAt: z.date().optional(),
});
export type CreateDesignTokenInput = z.input<typeof CreateDesignTokenInput>;

export type DesignTokenRecord = {
  id: number;
  name: string;
  prefix: string;
  roles: DesignRole[];
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
};

function record(row: typeof designTokens.$inferSelect): DesignTokenRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    roles: row.roles,
    expires_at: isoOrNull(row.expiresAt),
    last_used_at: isoOrNull(row.lastUsedAt),
    revoked_at: isoOrNull(row.revokedAt),
    created_at: row.createdAt.toISOString(),
  };
}

/** Issues a design agent token (operator CLI): the plain token is returned this once, only its SHA-256 kept. */
export async function createDesignToken(db: Database, rawInput: CreateDesignTokenInput, brand: string) {
  const input = parseInput(CreateDesignTokenInput, rawInput);
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    throw new ValidationError({ expiresAt: ["must be in the future"] });
  }
  const token = generateDesignTokenSecret(brand);
  const roles = designRoles.filter((role) => input.roles.includes(role));
  const [row] = await db
    .insert(designTokens)
    .values({
      name: input.name,
      prefix: visiblePrefix(token),
      hash: hashSecret(token),
      roles,
      expiresAt: input.expiresAt ?? null,
    })
    .returning();
  return { token, record: record(row as typeof designTokens.$inferSelect) };
}

/** Every design token, live ones and ended ones, oldest first. */
export async function listDesignTokens(db: Database): Promise<DesignTokenRecord[]> {
  return (await db.select().from(designTokens).orderBy(asc(designTokens.id))).map(record);
}

/** Revokes a token from its next request on; an unknown or already revoked id says so. */
export async function revokeDesignToken(db: Database, id: number): Promise<DesignTokenRecord> {
  const [row] = await db
    .update(designTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(designTokens.id, id), isNull(designTokens.revokedAt)))
    .returning();
  if (!row) throw new DomainError("not_found", `No live design token ${id}.`);
  return record(row);
}
