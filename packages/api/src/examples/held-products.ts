import { schema } from "@shelf/db";
import { createOrder } from "../commerce/order-admin";
// Upward on purpose: an example builds its rows through the products domain's own service, as an operator would,
// so the security matrix requests what real data looks like (examples run in tests only, never on a request).
import { createProduct } from "../routers/products/admin-service";
import type { ExampleContext } from "../trpc";

/** A product only the example's account holds, bought in an order of its own. */
export async function exampleHeldProduct({ db, accountId }: ExampleContext): Promise<number> {
  const product = await createProduct(db, { name: "Held by one account", published: true });
  await createOrder(db, { accountId, productId: product.id });
  return product.id;
}

/** A product only the example's account held, on a trial that ended yesterday. */
export async function exampleEndedProduct({ db, accountId }: ExampleContext): Promise<number> {
  const product = await createProduct(db, { name: "Ended for one account", published: true });
  await db.insert(schema.entitlements).values({
    accountId,
    productId: product.id,
    grantType: "trial",
    accessExpiresAt: new Date(Date.now() - 86_400_000),
  });
  return product.id;
}
