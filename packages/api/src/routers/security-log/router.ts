import { schema } from "@shelf/db";
import { sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import { SecurityLogData, SecurityLogInput } from "./schemas";
import { listSecurityEvents } from "./service";

/** The signed-in person's security log (the account pages only, never over REST). */
export const securityLogRouter = router({
  list: sessionProcedure
    .meta({
      ability: "signed-in",
      example: {
        listed: async ({ db, accountId }) => {
          const [event] = await db
            .insert(schema.securityEvents)
            .values({ accountId, kind: "sign_in_failed", address: "192.0.2.1" })
            .returning({ id: schema.securityEvents.id });
          return [{ list: "events", row: { id: event?.id } }];
        },
      },
    })
    .input(SecurityLogInput.optional())
    .output(SecurityLogData)
    .query(({ ctx, input }) => listSecurityEvents(ctx.db, ctx.caller.accountId, input ?? {})),
});
