import { randomInt } from "node:crypto";
import { schema } from "@shelf/db";
import { desc, eq } from "drizzle-orm";
import { createOrder } from "../../commerce/order-admin";
import type { ExampleContext } from "../../trpc";

/** An order of the example's product in a quantity of its own (its invoice line then tells whose it is). */
export async function exampleOrderQuantity({ db, accountId, productId }: ExampleContext): Promise<number> {
  const quantity = randomInt(2, 1000);
  await createOrder(db, { accountId, productId, quantity });
  return quantity;
}

/** The example account's newest invoice. */
export async function exampleInvoice({ db, accountId }: ExampleContext): Promise<number> {
  const [invoice] = await db
    .select({ id: schema.invoices.id })
    .from(schema.invoices)
    .where(eq(schema.invoices.accountId, accountId))
    .orderBy(desc(schema.invoices.id))
    .limit(1);
  if (!invoice) throw new Error("the example account has no invoice");
  return invoice.id;
}
