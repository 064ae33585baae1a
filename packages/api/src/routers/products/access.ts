import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, desc, eq, gt, isNull, or, sql } from "drizzle-orm";
import { perDatabase } from "../../prepared";

const { entitlements, products } = schema;

/** An entitlement grants access while it is not revoked and its access has not expired. */
export function activeEntitlement(now: Date | ReturnType<typeof sql> = sql`now()`) {
  return and(
    isNull(entitlements.revokedAt),
    or(isNull(entitlements.accessExpiresAt), gt(entitlements.accessExpiresAt, now)),
  );
}

/** Among several live entitlements to one product, the one that lasts longest wins. */
export const bestEntitlementFirst = [
  sql`${entitlements.accessExpiresAt} is null desc`,
  desc(entitlements.accessExpiresAt),
  sql`${entitlements.updatesSupportedUntil} is null desc`,
  desc(entitlements.updatesSupportedUntil),
  entitlements.id,
];

export type EntitlementGrant = {
  id: number;
  grantType: string;
  accessExpiresAt: Date | null;
  updatesSupportedUntil: Date | null;
};

export type ProductAccess = {
  id: number;
  published: boolean;
  contentLocale: string | null;
  entitlement: EntitlementGrant | null;
};

const productAccessQuery = perDatabase((db) => {
  const best = db
    .select({
      id: entitlements.id,
      grantType: entitlements.grantType,
      accessExpiresAt: entitlements.accessExpiresAt,
      updatesSupportedUntil: entitlements.updatesSupportedUntil,
    })
    .from(entitlements)
    .where(
      and(
        eq(entitlements.accountId, sql.placeholder("accountId")),
        eq(entitlements.productId, products.id),
        activeEntitlement(),
      ),
    )
    .orderBy(...bestEntitlementFirst)
    .limit(1)
    .as("best");
  return db
    .select({
      id: products.id,
      published: products.published,
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

/**
 * The same rules as raw SQL over `entitlements e`, for correlated subqueries inside drizzle's relational queries
 * (which rewrite every column object in their SQL to the outer table's alias).
 */
export const ACTIVE_ENTITLEMENT_E_SQL =
  "e.revoked_at is null and (e.access_expires_at is null or e.access_expires_at > now())";
export const BEST_ENTITLEMENT_FIRST_E_SQL =
  "e.access_expires_at is null desc, e.access_expires_at desc, e.updates_supported_until is null desc, e.updates_supported_until desc, e.id";
const ACTIVE_ENTITLEMENT_E = sql.raw(ACTIVE_ENTITLEMENT_E_SQL);

/** Whether the account holds a live entitlement to the product whose id is `productId` (a column or value). */
export function entitledSql(accountId: number, productId: unknown) {
  return sql<boolean>`exists (select 1 from entitlements e where e.account_id = ${accountId} and e.product_id = ${productId} and ${ACTIVE_ENTITLEMENT_E})`;
}
