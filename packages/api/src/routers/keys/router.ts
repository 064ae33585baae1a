import { createApiKey } from "../../auth/key-issuing";
import { sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import { CreatedKeyData, CreateOwnKeyInput, KeyIdInput, KeyListData, KeyListItem } from "./schemas";
import { createOwnKey, listOwnKeys, revokeOwnKey } from "./service";

/** The key list of developer settings: only the signed-in person manages their keys, never a key itself. */
export const keysRouter = router({
  list: sessionProcedure
    .meta({
      ability: "signed-in",
      example: {
        listed: async ({ db, accountId }) => {
          const { record } = await createApiKey(db, { accountId, kind: "device", client: "listed" }, "shelf");
          return [{ list: "keys", row: { id: record.id } }];
        },
      },
    })
    .output(KeyListData)
    .query(({ ctx }) => listOwnKeys(ctx.db, ctx.caller.accountId)),

  create: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(CreateOwnKeyInput)
    .output(CreatedKeyData)
    .mutation(({ ctx, input }) => createOwnKey(ctx.db, ctx.caller.accountId, input, ctx.keyBrand)),

  revoke: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(KeyIdInput)
    .output(KeyListItem)
    .mutation(({ ctx, input }) => revokeOwnKey(ctx.db, ctx.caller.accountId, input.id)),
});
