import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { DomainError, parseInput, ValidationError } from "../../errors";
import { type EntitlementRecord, GrantEntitlementInput } from "./schemas";

const { accounts, entitlements, products } = schema;

type EntitlementRow = typeof entitlements.$inferSelect;

export function toEntitlementRecord(row: EntitlementRow): EntitlementRecord {
  return {
    id: row.id,
    account_id: row.accountId,
    product_id: row.productId,
    grant_type: row.grantType,
    source_quantity: row.sourceQuantity,
    access_expires_at: row.accessExpiresAt?.toISOString() ?? null,
    updates_supported_until: row.updatesSupportedUntil?.toISOString() ?? null,
    granted_at: row.grantedAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Gives an account access to a product (an operator grant by default). Access that ends in the past would be dead
 * on arrival and is refused; an update window already over is allowed, as for a buyer of an old version.
 */
export async function grantEntitlement(db: Database, rawInput: GrantEntitlementInput): Promise<EntitlementRecord> {
  const input = parseInput(GrantEntitlementInput, rawInput);
  const now = new Date();
  if (input.accessExpiresAt && input.accessExpiresAt <= now) {
    throw new ValidationError({ accessExpiresAt: ["must be in the future"] });
  }
  return db.transaction(async (tx) => {
    const [account] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
    if (!account) throw new DomainError("not_found", "Account not found.");
    const [product] = await tx.select({ id: products.id }).from(products).where(eq(products.id, input.productId));
    if (!product) throw new DomainError("not_found", "Product not found.");
    const [row] = await tx
      .insert(entitlements)
      .values({
        accountId: input.accountId,
        productId: input.productId,
        grantType: input.grantType,
        accessExpiresAt: input.accessExpiresAt ?? null,
        updatesSupportedUntil: input.updatesSupportedUntil ?? null,
        grantedAt: now,
      })
      .returning();
    return toEntitlementRecord(row as EntitlementRow);
  });
}
