import { randomBytes, randomUUID } from "node:crypto";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { type Ability, accountAbilities } from "../abilities";
import { createApiKey } from "../auth/key-issuing";
import { recordSecret } from "./secrets";

const unique = () => randomBytes(4).toString("hex");

export async function createAccount(db: Database, values: Partial<typeof schema.accounts.$inferInsert> = {}) {
  const [account] = await db
    .insert(schema.accounts)
    .values({ email: `user-${unique()}@example.test`, name: "Test User", ...values })
    .returning();
  return account as typeof schema.accounts.$inferSelect;
}

export async function createProduct(db: Database, values: Partial<typeof schema.products.$inferInsert> = {}) {
  const [product] = await db
    .insert(schema.products)
    .values({ name: `Product ${unique()}`, unitPriceCents: 1000, currency: "USD", ...values })
    .returning();
  return product as typeof schema.products.$inferSelect;
}

export async function grantEntitlement(
  db: Database,
  accountId: number,
  productId: number,
  values: Partial<typeof schema.entitlements.$inferInsert> = {},
) {
  const [entitlement] = await db
    .insert(schema.entitlements)
    .values({ accountId, productId, grantType: "purchase", ...values })
    .returning();
  return entitlement as typeof schema.entitlements.$inferSelect;
}

/**
 * A release row. With an `artifactSha256` it also names a file (the schema keeps an artifact's fields together), one
 * that no store holds: for tests of what the API says about releases. Tests that download publish a real file.
 */
export async function createRelease(
  db: Database,
  productId: number,
  values: Partial<typeof schema.releases.$inferInsert> = {},
) {
  const artifact = values.artifactSha256
    ? {
        artifactKey: `artifacts/00/${randomUUID()}`,
        artifactFilename: `product-${productId}-${values.version ?? "1.0.0"}.zip`,
        artifactSize: 1,
      }
    : {};
  const [release] = await db
    .insert(schema.releases)
    .values({ productId, version: "1.0.0", channel: "stable", ...artifact, ...values })
    .returning();
  return release as typeof schema.releases.$inferSelect;
}

export async function createCategory(db: Database, values: Partial<typeof schema.categories.$inferInsert> = {}) {
  const [category] = await db
    .insert(schema.categories)
    .values({ name: `Category ${unique()}`, ...values })
    .returning();
  return category as typeof schema.categories.$inferSelect;
}

export async function createTag(db: Database, values: Partial<typeof schema.tags.$inferInsert> = {}) {
  const [tag] = await db
    .insert(schema.tags)
    .values({ name: `Tag ${unique()}`, ...values })
    .returning();
  return tag as typeof schema.tags.$inferSelect;
}

export type KeyOptions = {
  abilities?: Ability[];
  productId?: number | null;
  kind?: "created" | "device";
  expiresAt?: Date | null;
  client?: string;
};

/** A key for the account; returns the plain key and its record. */
export async function createKey(db: Database, accountId: number, options: KeyOptions = {}) {
  const created = await createApiKey(db, { accountId, ...options }, "shelf");
  recordSecret(created.key);
  return created;
}

/** An account with one key holding every account ability. */
export async function createAccountWithKey(db: Database, options: KeyOptions = {}) {
  const account = await createAccount(db);
  const { key, record } = await createKey(db, account.id, {
    abilities: options.abilities ?? [...accountAbilities],
    ...options,
  });
  return { account, key, record };
}
