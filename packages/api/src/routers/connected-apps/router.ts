import { schema } from "@shelf/db";
import { z } from "zod";
import { registerClient } from "../../oauth/clients";
import { sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import { ConnectedAppData, ConnectedAppIdInput } from "./schemas";
import { disconnectApp, listConnectedApps } from "./service";

/** Connected apps of the account security settings (contract 5.2): the OAuth grants, and disconnecting them. */
export const connectedAppsRouter = router({
  list: sessionProcedure
    .meta({
      ability: "signed-in",
      example: {
        listed: async ({ db, accountId }) => {
          const redirectUri = "http://127.0.0.1:45678/callback";
          const client = await registerClient(db, { client_name: "Listed app", redirect_uris: [redirectUri] });
          const [grant] = await db
            .insert(schema.oauthGrants)
            .values({ accountId, clientId: client.client_id, scopes: ["mcp.read"], redirectUri })
            .returning({ id: schema.oauthGrants.id });
          return [{ list: "", row: { id: grant?.id } }];
        },
      },
    })
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
