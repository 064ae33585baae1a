// Upward on purpose: an example subscribes through the subscriptions domain's own service (tests only).
import { createSubscription } from "../routers/subscriptions/admin-service";
import type { ExampleContext } from "../trpc";

/** A live subscription of the example's account to the example's product; its id. */
export async function exampleSubscription({ db, accountId, productId }: ExampleContext): Promise<number> {
  return (await createSubscription(db, { accountId, productId })).id;
}
