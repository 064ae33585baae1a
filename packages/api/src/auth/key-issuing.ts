/**
 * Issuing and revoking API keys, under the one slot rule: the key pages, the operator CLI, devices, licensing, the
 * MCP and device sign-in all create keys here. Resolving a key a request sends is `api-key.ts`.
 */
import type { Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { defaultAbilities } from "../abilities";
import { DomainError, isUniqueViolation, parseInput, ValidationError } from "../errors";
import { type ApiKeyRecord, CreateKeyInput } from "../schemas/api-key";
import { recordSecurityEvent } from "../security-log";
import { DEVICE_KEY_IDLE_DAYS } from "./api-key";
import { generateKeySecret, hashSecret, KEY_SECRET_PATTERN, visiblePrefix } from "./key-secret";

const { apiKeys, accounts, products } = schema;

/** Live keys per scope: account-wide keys, and each product's keys, count separately (contract 5.10). */
export const KEY_SLOTS_PER_SCOPE = 3;

type ApiKeyRow = typeof apiKeys.$inferSelect;

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    account_id: row.accountId,
    product_id: row.productId,
    kind: row.kind,
    name: row.name,
    prefix: row.prefix,
    abilities: row.abilities,
    expires_at: row.expiresAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/** A second key from one key form: the first one made the key, which is in the list (its value was shown once). */
function formAlreadySent(): DomainError {
  return new DomainError("conflict", "This form was already sent: the key it made is in the key list.", {
    form_token: "already_used",
  });
}

function liveKeyCondition(now: Date) {
  return and(isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)));
}

/**
 * Creates a key and returns its plain value, the only time it exists outside the caller's hands.
 * The scope's slot count is checked under a transaction-scoped advisory lock on (account, scope), so parallel
 * creations on any number of instances serialize and a fourth live key can never appear.
 * A device sign-in key takes the slot of its client's least recently used key when the scope is full.
 */
export async function createApiKey(
  db: Executor,
  rawInput: CreateKeyInput,
  brand: string,
  options: { secret?: string } = {},
): Promise<{ key: string; record: ApiKeyRecord }> {
  const input = parseInput(CreateKeyInput, rawInput);
  const now = new Date();
  if (input.expiresAt && input.expiresAt <= now) throw new ValidationError({ expiresAt: ["must be in the future"] });
  const abilities = input.abilities ?? [...defaultAbilities[input.kind]];
  const expiresAt =
    input.kind === "device" ? new Date(now.getTime() + DEVICE_KEY_IDLE_DAYS * 86_400_000) : (input.expiresAt ?? null);

  // Only the demo seed brings its own (derived) secret; every other key is random.
  const secret = options.secret ?? generateKeySecret(brand);
  if (!KEY_SECRET_PATTERN.test(secret)) throw new ValidationError({ secret: ["is not a key of this service's shape"] });
  const row = await db.transaction(async (tx) => {
    const [account] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
    if (!account) throw new DomainError("not_found", "Account not found.");
    if (input.productId != null) {
      const [product] = await tx.select({ id: products.id }).from(products).where(eq(products.id, input.productId));
      if (!product) throw new DomainError("not_found", "Product not found.");
    }
    await tx.execute(sql`select pg_advisory_xact_lock(${input.accountId}, ${input.productId ?? 0})`);
    const scope = input.productId == null ? isNull(apiKeys.productId) : eq(apiKeys.productId, input.productId);
    const live = await tx
      .select({
        id: apiKeys.id,
        kind: apiKeys.kind,
        client: apiKeys.client,
        usedAt: sql<Date>`coalesce(${apiKeys.lastUsedAt}, ${apiKeys.createdAt})`,
      })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, input.accountId), scope, liveKeyCondition(now)))
      .orderBy(sql`coalesce(${apiKeys.lastUsedAt}, ${apiKeys.createdAt})`, apiKeys.id);
    if (live.length >= KEY_SLOTS_PER_SCOPE) {
      const replaceable =
        input.kind === "device"
          ? live.find((key) => key.kind === "device" && key.client === (input.client ?? null))
          : undefined;
      if (!replaceable) {
        throw new DomainError(
          "api_key_limit_reached",
          `At most ${KEY_SLOTS_PER_SCOPE} live keys per scope: revoke one before creating another.`,
        );
      }
      const [replaced] = await tx
        .update(apiKeys)
        .set({ revokedAt: now })
        .where(eq(apiKeys.id, replaceable.id))
        .returning({ prefix: apiKeys.prefix, name: apiKeys.name });
      await recordSecurityEvent(tx, {
        accountId: input.accountId,
        kind: "key_revoked",
        detail: {
          key: replaceable.id,
          prefix: replaced?.prefix ?? null,
          name: replaced?.name ?? null,
          reason: "replaced",
        },
      });
    }
    const [created] = await tx
      .insert(apiKeys)
      .values({
        accountId: input.accountId,
        productId: input.productId ?? null,
        kind: input.kind,
        name: input.name ?? null,
        client: input.client ?? null,
        issuedByKeyId: input.issuedByKeyId ?? null,
        prefix: visiblePrefix(secret),
        hash: hashSecret(secret),
        abilities,
        expiresAt,
        createdAt: now,
        formToken: input.formToken ?? null,
      })
      .returning()
      .catch((error: unknown) => {
        if (isUniqueViolation(error, "api_keys_form_token_key")) throw formAlreadySent();
        throw error;
      });
    const key = created as ApiKeyRow;
    await recordSecurityEvent(tx, {
      accountId: input.accountId,
      kind: "key_created",
      detail: { key: key.id, prefix: key.prefix, name: key.name, kind: key.kind, client: key.client },
    });
    return key;
  });
  return { key: secret, record: toApiKeyRecord(row) };
}

/**
 * Revokes a key of the account; revoking twice keeps the first revocation time. The first revocation is written to the
 * security log in the same transaction.
 */
export async function revokeApiKey(db: Executor, accountId: number, keyId: number): Promise<ApiKeyRecord> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
      .for("update");
    if (!before) throw new DomainError("not_found", "API key not found.");
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
      .returning();
    const key = row as ApiKeyRow;
    if (before.revokedAt === null) {
      await recordSecurityEvent(tx, {
        accountId,
        kind: "key_revoked",
        detail: { key: key.id, prefix: key.prefix, name: key.name },
      });
    }
    return toApiKeyRecord(key);
  });
}

/** Operator revocation by key id alone (the admin CLI), still a single-row update. */
export async function revokeApiKeyById(db: Executor, keyId: number): Promise<ApiKeyRecord> {
  const [row] = await db.select({ accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, keyId));
  if (!row) throw new DomainError("not_found", "API key not found.");
  return revokeApiKey(db, row.accountId, keyId);
}
