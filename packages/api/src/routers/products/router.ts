import { Readable } from "node:stream";
import { FileOutput, TextOutput } from "@shelf/server/plain";
import { z } from "zod";
import { exampleRelease } from "../../examples/release";
import { accountProcedure, productProcedure } from "../../procedures";
import { type ExampleContext, router } from "../../trpc";
import { bundle, contentAsset, installPlan, listContentAssets } from "./delivery";
import { putContentAsset } from "./publish";
import {
  ContentAssetData,
  ContentAssetPath,
  InstallInput,
  ListProductsInput,
  ProductApiData,
  ProductDetailApiData,
  ProductInstallData,
  ProductReleaseData,
  ProductUpdateApiData,
  UpdatesInput,
} from "./schemas";
import { checkForUpdate, getProduct, getProductDetail, listProducts, listReleases, productContentCss } from "./service";

const tags = ["products"];

/** A request about the example product once it has a published release with a file. */
async function publishedExample(context: ExampleContext) {
  await exampleRelease(context);
  return { params: { product: context.productId } };
}

export const productsRouter = router({
  list: accountProcedure
    .meta({
      ability: "products.read",
      openapi: { method: "GET", path: "/api/products", tags, summary: "Products in the catalog" },
      listing: "everyone",
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
      listing: "product",
    })
    .output(z.object({ product: ProductApiData }))
    .query(({ ctx }) => getProduct(ctx.db, ctx.product)),

  detail: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      openapi: { method: "GET", path: "/api/products/{product}/detail", tags, summary: "Full product detail" },
      listing: "product",
    })
    .output(ProductDetailApiData)
    .query(({ ctx }) => getProductDetail(ctx.db, ctx.product)),

  releases: productProcedure
    .meta({
      ability: "any-key",
      product: "visible",
      openapi: { method: "GET", path: "/api/products/{product}/releases", tags, summary: "Releases of a product" },
      listing: "product",
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

  install: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      openapi: {
        method: "GET",
        path: "/api/products/{product}/install",
        tags,
        summary: "Install plan",
        description:
          "The newest release of the `channel` (default stable) this buyer may install: the newest one published while their updates were supported. `download_url` is a signed link without the API key that expires at `download_expires_at`; `sha256` and `size` are the stored file's. `format` is the product's delivery strategy and `target` its first delivery target.",
      },
      errors: ["install_not_available"],
      example: { build: publishedExample },
    })
    .input(InstallInput)
    .output(z.object({ data: ProductInstallData }))
    .query(({ ctx, input }) => installPlan(ctx.db, ctx.delivery, ctx.product, input.channel)),

  bundle: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      plain: {
        method: "GET",
        path: "/api/products/{product}/bundle",
        contentTypes: ["application/octet-stream"],
        tags,
        summary: "Download the newest release",
        description:
          "The newest release of the `channel` (default stable), streamed, with `Range` and `If-Range`. A buyer whose update window ended before that release gets 403 `version_update_window_expired`.",
      },
      errors: ["version_update_window_expired"],
      example: { build: publishedExample },
    })
    .input(InstallInput)
    .output(FileOutput)
    .query(({ ctx, input }) => bundle(ctx.db, ctx.delivery, ctx.product, input.channel)),

  contentAssets: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      openapi: {
        method: "GET",
        path: "/api/products/{product}/content-assets",
        tags,
        summary: "Content assets of a product",
      },
      listing: "product",
    })
    .output(z.object({ assets: z.array(ContentAssetData) }))
    .query(({ ctx }) => listContentAssets(ctx.db, ctx.product.id, ctx.baseUrl)),

  contentAsset: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      plain: {
        method: "GET",
        path: "/api/products/{product}/content-assets/{path+}",
        contentTypes: ["application/octet-stream"],
        tags,
        summary: "One content asset",
        description:
          "`path` may contain slashes; `.` and `..` segments, backslashes and control characters are refused.",
      },
      example: {
        build: async ({ db, productId, delivery }) => {
          const asset = await putContentAsset(
            db,
            delivery.store,
            { productId, path: "docs/getting started/read me.md" },
            Readable.from([Buffer.from("# Getting started\n")]),
          );
          return { params: { product: productId, path: asset.path } };
        },
        target: "product",
      },
    })
    .input(z.object({ path: ContentAssetPath }))
    .output(FileOutput)
    .query(({ ctx, input }) => contentAsset(ctx.db, ctx.delivery, ctx.product.id, input.path)),

  contentCss: accountProcedure
    .meta({
      ability: "products.read",
      plain: {
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
