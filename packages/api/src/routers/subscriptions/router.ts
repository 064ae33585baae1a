import { z } from "zod";
import { commerceView } from "../../commerce/orders";
import { accountProcedure, sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import { cancelSubscription, createSubscription, resumeSubscription } from "./admin-service";
import { SubscriptionChangeData, SubscriptionIdInput, SubscriptionsData } from "./schemas";
import { listSubscriptions } from "./service";

export const subscriptionsRouter = router({
  list: accountProcedure
    .meta({
      ability: "subscriptions.read",
      openapi: {
        method: "GET",
        path: "/api/subscriptions",
        tags: ["subscriptions"],
        summary: "The account's subscriptions",
        description:
          "Newest first, with states derived from what is stored, so they always agree: a subscription whose period ended is `expired`; one that renews `can_cancel` and has `next_charge_at` (the end of its period); one cancelled at period end runs on and can be resumed (`action`: cancel, resume, update_payment_method, resubscribe or none). A renewal in another currency has its KRW estimate from the stored exchange rate, with its source. Labels in Korean or English, by `Accept-Language`. A product key sees its product's.",
      },
      example: {
        listed: async ({ db, accountId, productId }) => [
          { list: "subscriptions", row: { id: (await createSubscription(db, { accountId, productId })).id } },
        ],
      },
    })
    .input(z.object({}))
    .output(SubscriptionsData)
    .query(({ ctx }) => listSubscriptions(ctx.db, ctx.caller, commerceView(ctx))),

  /** The billing page: stop renewing at the end of the period (`subscription:cancel --at-period-end`), own only. */
  cancel: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(SubscriptionIdInput)
    .output(SubscriptionChangeData)
    .mutation(({ ctx, input }) =>
      cancelSubscription(ctx.db, input.id, { atPeriodEnd: true, accountId: ctx.caller.accountId }),
    ),

  /** The billing page: renew again a subscription cancelled at period end (`subscription:resume`), own only. */
  resume: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(SubscriptionIdInput)
    .output(SubscriptionChangeData)
    .mutation(({ ctx, input }) => resumeSubscription(ctx.db, input.id, { accountId: ctx.caller.accountId })),
});
