import { jsonTextOf } from "@shelf/server/json-text";
import { z } from "zod";
import { exampleEndedProduct, exampleHeldProduct } from "../../examples/held-products";
import { accountProcedure, sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import { EndedAccessData, EndedAccessInput, LibraryApiData } from "./schemas";
import { endedAccess, endedAccesses, getLibrary } from "./service";

export const libraryRouter = router({
  get: accountProcedure
    .meta({
      ability: "products.read",
      openapi: {
        method: "GET",
        path: "/api/library",
        tags: ["library"],
        summary: "The account's usable products, ready to set up",
        description: "A product-scoped key sees only its product.",
      },
      example: {
        listed: async (context) => [{ list: "items", row: { product: { id: await exampleHeldProduct(context) } } }],
      },
    })
    .input(z.object({}))
    .output(jsonTextOf(LibraryApiData))
    .query(({ ctx }) => getLibrary(ctx.db, ctx.caller, ctx.baseUrl)),

  /** The product page of a product whose access ended: what the account had of it, or null (never had it). */
  ended: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(EndedAccessInput)
    .output(EndedAccessData.nullable())
    .query(({ ctx, input }) => endedAccess(ctx.db, ctx.caller.accountId, input.product)),

  /** The library page's products whose access ended, each with how and where to renew it. */
  endedAll: sessionProcedure
    .meta({
      ability: "signed-in",
      example: {
        listed: async (context) => [{ list: "", row: { product_id: await exampleEndedProduct(context) } }],
      },
    })
    .output(z.array(EndedAccessData))
    .query(({ ctx }) => endedAccesses(ctx.db, ctx.caller.accountId)),
});
