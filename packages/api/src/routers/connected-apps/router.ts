import { z } from "zod";
import { router, sessionProcedure } from "../../trpc";
import { ConnectedAppData, ConnectedAppIdInput } from "./schemas";
import { disconnectApp, listConnectedApps } from "./service";

/** Connected apps of the account security settings (contract 5.2): the OAuth grants, and disconnecting them. */
export const connectedAppsRouter = router({
  list: sessionProcedure
    .meta({ ability: "signed-in" })
    .output(z.array(ConnectedAppData))
    .query(({ ctx }) => listConnectedApps(ctx.db, ctx.caller.accountId)),

  disconnect: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(ConnectedAppIdInput)
    .output(z.object({ disconnected: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await disconnectApp(ctx.db, ctx.caller.accountId, input.id);
      return { disconnected: true as const };
    }),
});
