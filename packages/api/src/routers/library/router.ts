import { z } from "zod";
import { jsonTextOf } from "../../json-text";
import { accountProcedure, router } from "../../trpc";
import { exampleHeldProduct } from "../devices/example";
import { LibraryApiData } from "./schemas";
import { getLibrary } from "./service";

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
});
