import { guessLimitsOf } from "../../context";
import { router, sessionProcedure } from "../../trpc";
import { ChangedPasswordData, ChangePasswordInput, MeData } from "./schemas";
import { changePassword, getMe } from "./service";

/** The signed-in person's own account: who they are, and their password. */
export const accountRouter = router({
  me: sessionProcedure
    .meta({ ability: "signed-in" })
    .output(MeData)
    .query(({ ctx }) => getMe(ctx.db, ctx.caller.accountId)),

  changePassword: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(ChangePasswordInput)
    .output(ChangedPasswordData)
    .mutation(({ ctx, input }) => changePassword(ctx.db, ctx.caller, guessLimitsOf(ctx).signIn, input)),
});
