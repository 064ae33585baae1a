import { randomInt } from "node:crypto";
import { schema } from "@shelf/db";
import type { ExampleContext } from "../../trpc";
import { createOrder } from "../orders/admin-service";
import { createProduct } from "../products/admin-service";

/** A product only the example's account holds, bought in an order of its own. */
export async function exampleHeldProduct({ db, accountId }: ExampleContext): Promise<number> {
  const product = await createProduct(db, { name: "Held by one account", published: true });
  await createOrder(db, { accountId, productId: product.id });
  return product.id;
}

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

/** A device of the example's account seated on the example's product; its identifier. */
export async function exampleSeat({ db, accountId, productId }: ExampleContext): Promise<string> {
  const identifier = `seated-${randomInt(1_000_000_000)}`;
  const [device] = await db
    .insert(schema.devices)
    .values({ accountId, identifier, lastSeenAt: new Date(), activatedAt: new Date() })
    .returning({ id: schema.devices.id });
  await db.insert(schema.deviceActivations).values({ accountId, productId, deviceId: (device as { id: number }).id });
  return identifier;
}
