import { z } from "zod";
import { createApiKey } from "../../auth/key-issuing";
import { DomainError } from "../../errors";
import { exampleSeat } from "../../examples/seats";
import { answerLanguageOf } from "../../language";
import { accountProcedure, productProcedure } from "../../procedures";
import { router } from "../../trpc";
import { passCheck } from "./pass";
import {
  DeviceKeyReleaseData,
  LicenseCheckData,
  LicenseCheckInput,
  PassCheckData,
  ProductLicenseData,
} from "./schemas";
import { checkLicense, productLicense, releaseDeviceKey } from "./service";

const tags = ["license"];

export const licensingRouter = router({
  check: accountProcedure
    .meta({
      ability: "device.entitlements",
      openapi: {
        method: "POST",
        path: "/api/license/check",
        tags,
        summary: "Check a license, and activate this device",
        description:
          "Decides by `product_id` or `bundle_id`. A licensed check with a `device_id` seats the device on the product: a device new to the product past its device limit gets 409 `device_limit_reached` with the seated devices (`devices`: id, name, last seen) and `manage_url`; a seated device is always let in. `code` says why (`valid` is the only licensed one). `certificate` is a compact JWS (EdDSA) to verify offline with the JWKS at `/.well-known/jwks.json` until it expires.",
      },
      errors: ["not_found", "device_limit_reached", "product_api_key_scope_required"],
      // Checking again seats nothing new: the device already holds its seat.
      idempotent: true,
      example: { build: ({ productId }) => ({ body: { product_id: productId, device_id: "matrix-device" } }) },
    })
    .input(LicenseCheckInput)
    .output(LicenseCheckData)
    .mutation(({ ctx, input }) => checkLicense(ctx.db, ctx.delivery.keyring, ctx.caller, input, ctx.baseUrl)),

  product: productProcedure
    .meta({
      ability: "products.read",
      product: "entitled",
      openapi: {
        method: "GET",
        path: "/api/products/{product}/license",
        tags,
        summary: "The account's license of a product",
        description: "Its state, device limit and the devices seated on it.",
      },
      example: {
        listed: async (context) => [
          { list: "license.activations", row: { device: { device_id: await exampleSeat(context) } } },
        ],
      },
    })
    .output(ProductLicenseData)
    .query(({ ctx }) => productLicense(ctx.db, ctx.caller, ctx.product)),

  releaseDevice: productProcedure
    .meta({
      ability: "products.read",
      product: "visible",
      keyScope: "product",
      revokesKey: true,
      openapi: {
        method: "POST",
        path: "/api/products/{product}/license/device/revoke",
        tags,
        summary: "Release this device and revoke its product key",
        description:
          "Only a key scoped to the product (any other: 403 `product_api_key_scope_required`). Frees the product's seats this key checked last, and revokes the key.",
      },
      example: {
        build: async ({ db, accountId, productId }) => ({
          params: { product: productId },
          key: (await createApiKey(db, { accountId, productId, kind: "device" }, "shelf")).key,
        }),
      },
    })
    .output(DeviceKeyReleaseData)
    .mutation(({ ctx }) => {
      if (ctx.caller.type !== "api_key") throw new DomainError("product_api_key_scope_required");
      return releaseDeviceKey(ctx.db, ctx.caller, ctx.product.id);
    }),

  passCheck: accountProcedure
    .meta({
      ability: "device.entitlements",
      openapi: {
        method: "GET",
        path: "/api/v1/entitlements/pass-check",
        tags,
        summary: "The all-access pass",
        description:
          "Whether the account holds a live all-access pass, its tier, features and apps. A pass that lapsed without being cancelled works on through its grace period, with `grace_warning`. Texts in Korean or English, by `Accept-Language`.",
      },
    })
    .input(z.object({}))
    .output(PassCheckData)
    .query(({ ctx }) => passCheck(ctx.db, ctx.caller, answerLanguageOf(ctx), ctx.baseUrl)),
});
