import { schema } from "@shelf/db";
import type { ExampleContext } from "../../trpc";
import { createProduct } from "../products/admin-service";

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
