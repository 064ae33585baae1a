import { sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import { ChangedPasswordData, ChangeNameInput, ChangePasswordInput, MeData } from "./schemas";
import { changeName, changePassword, getMe } from "./service";

/** The signed-in person's own account: who they are, and their password. */
export const accountRouter = router({
  me: sessionProcedure
    .meta({ ability: "signed-in" })
    .output(MeData)
    .query(({ ctx }) => getMe(ctx.db, ctx.caller.accountId)),

  changeName: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(ChangeNameInput)
    .output(MeData)
    .mutation(({ ctx, input }) => changeName(ctx.db, ctx.caller.accountId, input)),

  changePassword: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(ChangePasswordInput)
    .output(ChangedPasswordData)
    .mutation(({ ctx, input }) => changePassword(ctx.db, ctx.caller, ctx.guessLimits.signIn, input)),
});
