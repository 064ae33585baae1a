import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { perDatabase } from "./prepared";

const { entitlements, products } = schema;

/**
 * An entitlement grants access while it is not revoked and its access has not expired; among several live ones to
 * one product, the one that lasts longest wins. Raw SQL over `entitlements e`, so that the same text serves drizzle
 * queries (through an alias) and hand-written ones alike.
 */
export const ACTIVE_ENTITLEMENT_E_SQL =
  "e.revoked_at is null and (e.access_expires_at is null or e.access_expires_at > now())";
export const BEST_ENTITLEMENT_FIRST_E_SQL =
  "e.access_expires_at is null desc, e.access_expires_at desc, e.updates_supported_until is null desc, e.updates_supported_until desc, e.id";
const ACTIVE_ENTITLEMENT_E = sql.raw(ACTIVE_ENTITLEMENT_E_SQL);

export type EntitlementGrant = {
  id: number;
  grantType: string;
  accessExpiresAt: Date | null;
  updatesSupportedUntil: Date | null;
};

export type ProductAccess = {
  id: number;
  published: boolean;
  unitPriceCents: number;
  contentLocale: string | null;
  entitlement: EntitlementGrant | null;
};

const productAccessQuery = perDatabase((db) => {
  const e = alias(entitlements, "e");
  const best = db
    .select({
      id: e.id,
      grantType: e.grantType,
      accessExpiresAt: e.accessExpiresAt,
      updatesSupportedUntil: e.updatesSupportedUntil,
    })
    .from(e)
    .where(and(eq(e.accountId, sql.placeholder("accountId")), eq(e.productId, products.id), ACTIVE_ENTITLEMENT_E))
    .orderBy(sql.raw(BEST_ENTITLEMENT_FIRST_E_SQL))
    .limit(1)
    .as("best");
  return db
    .select({
      id: products.id,
      published: products.published,
      unitPriceCents: products.unitPriceCents,
      contentLocale: products.contentLocale,
      entitlementId: best.id,
      grantType: best.grantType,
      accessExpiresAt: best.accessExpiresAt,
      updatesSupportedUntil: best.updatesSupportedUntil,
    })
    .from(products)
    .leftJoinLateral(best, sql`true`)
    .where(eq(products.id, sql.placeholder("productId")))
    .prepare("shelf_product_access");
});

/** An account id no account has (identities start at 1): the entitlement of someone without a key. */
export const NO_ACCOUNT = 0;

/** The product and this account's best live entitlement to it, in one query; null when no such product. */
export async function findProductAccess(
  db: Database,
  accountId: number,
  productId: number,
): Promise<ProductAccess | null> {
  const [row] = await productAccessQuery(db).execute({ accountId, productId });
  if (!row) return null;
  return {
    id: row.id,
    published: row.published,
    unitPriceCents: row.unitPriceCents,
    contentLocale: row.contentLocale,
    entitlement:
      row.entitlementId == null
        ? null
        : {
            id: row.entitlementId,
            grantType: row.grantType as string,
            accessExpiresAt: row.accessExpiresAt,
            updatesSupportedUntil: row.updatesSupportedUntil,
          },
  };
}

/** Whether the account holds a live entitlement to the product whose id is `productId` (a column or value). */
export function entitledSql(accountId: number, productId: unknown) {
  return sql<boolean>`exists (select 1 from entitlements e where e.account_id = ${accountId} and e.product_id = ${productId} and ${ACTIVE_ENTITLEMENT_E})`;
}
