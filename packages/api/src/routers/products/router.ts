import { z } from "zod";
import { TextOutput } from "../../plain";
import { accountProcedure, router } from "../../trpc";
import { productProcedure } from "./procedure";
import {
  ListProductsInput,
  ProductApiData,
  ProductDetailApiData,
  ProductReleaseData,
  ProductUpdateApiData,
  UpdatesInput,
} from "./schemas";
import { checkForUpdate, getProduct, getProductDetail, listProducts, listReleases, productContentCss } from "./service";

const tags = ["products"];

export const productsRouter = router({
  list: accountProcedure
    .meta({
      ability: "products.read",
      openapi: { method: "GET", path: "/api/products", tags, summary: "Products in the catalog" },
    })
    .input(ListProductsInput)
    .output(z.object({ products: z.array(ProductApiData) }))
    .query(({ ctx, input }) => listProducts(ctx.db, ctx.caller, input)),

  get: productProcedure
    .meta({
      ability: "products.read",
      product: "visible",
      openapi: {
        method: "GET",
        path: "/api/products/{product}",
        tags,
        summary: "One product",
        description: "An unpublished product is visible only to accounts that can access it.",
      },
    })
    .output(z.object({ product: ProductApiData }))
    .query(({ ctx }) => getProduct(ctx.db, ctx.product)),

  detail: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      openapi: { method: "GET", path: "/api/products/{product}/detail", tags, summary: "Full product detail" },
    })
    .output(ProductDetailApiData)
    .query(({ ctx }) => getProductDetail(ctx.db, ctx.product)),

  releases: productProcedure
    .meta({
      ability: "any-key",
      product: "visible",
      openapi: { method: "GET", path: "/api/products/{product}/releases", tags, summary: "Releases of a product" },
    })
    .output(z.object({ releases: z.array(ProductReleaseData) }))
    .query(({ ctx }) => listReleases(ctx.db, ctx.product.id)),

  updates: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      openapi: {
        method: "GET",
        path: "/api/products/{product}/updates",
        tags,
        summary: "Update check",
        description:
          "Compares the client's `version` (semver) with the newest release of its `channel` (default stable; beta also sees stable, alpha beta and stable, dev all). Yanked releases are never offered.",
      },
    })
    .input(UpdatesInput)
    .output(z.object({ update: ProductUpdateApiData }))
    .query(({ ctx, input }) => checkForUpdate(ctx.db, ctx.product, input, ctx.baseUrl)),

  contentCss: accountProcedure
    .meta({
      ability: "products.read",
      rest: {
        method: "GET",
        path: "/api/product-content.css",
        contentTypes: ["text/css"],
        summary: "Styles for the HTML fragments of product content",
        tags,
      },
    })
    .input(z.object({}))
    .output(TextOutput)
    .query(({ ctx }) => productContentCss(ctx.db, ctx.caller)),
});
