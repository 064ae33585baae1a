import { randomInt } from "node:crypto";
import { schema } from "@shelf/db";
import type { ExampleContext } from "../../trpc";

/** A bundle of the example's product that only the example's account holds. */
export async function exampleHeldBundle({ db, accountId, productId }: ExampleContext): Promise<number> {
  const [bundle] = await db
    .insert(schema.bundles)
    .values({ slug: `held-by-${accountId}-${randomInt(1_000_000_000)}`, name: "Held by one account" })
    .returning({ id: schema.bundles.id });
  const bundleId = (bundle as { id: number }).id;
  await db.insert(schema.bundleProducts).values({ bundleId, productId });
  await db.insert(schema.entitlements).values({ accountId, productId, grantType: "bundle", bundleId });
  return bundleId;
}
