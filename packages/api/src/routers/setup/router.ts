import { productProcedure } from "../../procedures";
import { ProductSetupProgressData } from "../../schemas/setup-progress";
import { router } from "../../trpc";
import { SetupProgressInput } from "./schemas";
import { getSetupProgress, updateSetupProgress } from "./service";

const tags = ["setup"];

export const setupRouter = router({
  progress: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      openapi: {
        method: "GET",
        path: "/api/products/{product}/setup-progress",
        tags,
        summary: "Setup progress of a product",
        description: "Which steps of the product's manual (`install_steps`, by index from 0) the account has done.",
      },
    })
    .output(ProductSetupProgressData)
    .query(({ ctx }) => getSetupProgress(ctx.db, ctx.caller, ctx.product)),

  record: productProcedure
    .meta({
      ability: "setup-progress.write",
      product: "entitled",
      openapi: {
        method: "PUT",
        path: "/api/products/{product}/setup-progress",
        tags,
        summary: "Record setup progress",
        description:
          "Marks `completed_step_indexes` done and `uncompleted_step_indexes` not done, as changes to what is stored: devices recording steps at the same time never lose each other's. An index the manual does not have is a 422. `completed_at` is when every step was first done.",
      },
    })
    .input(SetupProgressInput)
    .output(ProductSetupProgressData)
    .mutation(({ ctx, input }) => updateSetupProgress(ctx.db, ctx.caller, ctx.product, input)),
});
