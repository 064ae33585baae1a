import { z } from "zod";
import { endWebSessions, startWebSession } from "../../auth/web-session";
import { sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import { WebSessionData, WebSessionIdInput } from "./schemas";
import { endWebSession, listWebSessions } from "./service";

/** The signed-in person's browser sessions (the account pages only, never over REST). */
export const sessionsRouter = router({
  list: sessionProcedure
    .meta({
      ability: "signed-in",
      example: {
        listed: async ({ db, accountId }) => {
          const session = await startWebSession(db, accountId, { address: "192.0.2.1" });
          return [{ list: "", row: { id: session.sessionId } }];
        },
      },
    })
    .output(z.array(WebSessionData))
    .query(({ ctx }) => listWebSessions(ctx.db, ctx.caller.accountId, ctx.caller.sessionId)),

  end: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(WebSessionIdInput)
    .output(z.object({ ended: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await endWebSession(ctx.db, ctx.caller.accountId, input.id);
      return { ended: true as const };
    }),

  /** "Sign out everywhere": every session of the person ends, the one that asks included. */
  endAll: sessionProcedure
    .meta({ ability: "signed-in" })
    .output(z.object({ ended: z.number().int() }))
    .mutation(async ({ ctx }) => ({ ended: await endWebSessions(ctx.db, ctx.caller.accountId) })),
});
