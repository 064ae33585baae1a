import { randomBytes, randomUUID } from "node:crypto";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import type { PgTable } from "drizzle-orm/pg-core";
import { type Ability, accountAbilities } from "../abilities";
import { createApiKey } from "../auth/key-issuing";
import { recordSecret } from "./secrets";

const unique = () => randomBytes(4).toString("hex");

/** Inserts one row and returns it as stored: each factory below is this, with defaults of its own. */
async function insertOne<T extends PgTable>(
  db: Database,
  table: T,
  values: T["$inferInsert"],
): Promise<T["$inferSelect"]> {
  const [row] = await db.insert(table).values(values).returning();
  return row as T["$inferSelect"];
}

export async function createAccount(db: Database, values: Partial<typeof schema.accounts.$inferInsert> = {}) {
  return insertOne(db, schema.accounts, { email: `user-${unique()}@example.test`, name: "Test User", ...values });
}

export async function createProduct(db: Database, values: Partial<typeof schema.products.$inferInsert> = {}) {
  return insertOne(db, schema.products, {
    name: `Product ${unique()}`,
    unitPriceCents: 1000,
    currency: "USD",
    ...values,
  });
}

export async function grantEntitlement(
  db: Database,
  accountId: number,
  productId: number,
  values: Partial<typeof schema.entitlements.$inferInsert> = {},
) {
  return insertOne(db, schema.entitlements, { accountId, productId, grantType: "purchase", ...values });
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
  return insertOne(db, schema.releases, { productId, version: "1.0.0", channel: "stable", ...artifact, ...values });
}

export async function createCategory(db: Database, values: Partial<typeof schema.categories.$inferInsert> = {}) {
  return insertOne(db, schema.categories, { name: `Category ${unique()}`, ...values });
}

export async function createTag(db: Database, values: Partial<typeof schema.tags.$inferInsert> = {}) {
  return insertOne(db, schema.tags, { name: `Tag ${unique()}`, ...values });
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
