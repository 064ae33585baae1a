import { z } from "zod";
import type { Caller } from "../../auth/caller";
import { createApiKey } from "../../auth/key-issuing";
import { DomainError } from "../../errors";
import { exampleHeldProduct } from "../../examples/held-products";
import { exampleSeat } from "../../examples/seats";
import { exampleSubscription } from "../../examples/subscriptions";
import { accountProcedure, sessionProcedure } from "../../procedures";
import { type ExampleContext, router } from "../../trpc";
import { blockDevice, deactivateDevice, listDevices, unblockDevice } from "./admin-service";
import { exampleHeldBundle } from "./examples";
import {
  AccountDeviceData,
  BlockDeviceInput,
  BlockedDeviceData,
  BulkActivateData,
  BundlesData,
  DeviceEntitlementsData,
  DeviceIdInput,
  InstallRecordData,
  InstallRecordInput,
  ReleasedDeviceData,
  UnblockedDeviceData,
  UsageData,
  UsageInput,
} from "./schemas";
import { bulkActivate, deviceEntitlements, heldBundles, logout, recordInstall, uploadUsage } from "./service";

const tags = ["device"];

/** These endpoints act for the device behind a key: only account API keys may call them. */
function deviceKey(caller: Caller) {
  if (caller.type !== "api_key") throw new DomainError("invalid_api_key");
  return caller;
}

const today = () => new Date().toISOString().slice(0, 10);

/** A key of the example's account that the request may use up. */
async function spareKey({ db, accountId }: ExampleContext) {
  return (await createApiKey(db, { accountId, kind: "device", client: "matrix" }, "shelf")).key;
}

export const devicesRouter = router({
  entitlements: accountProcedure
    .meta({
      ability: "device.entitlements",
      openapi: {
        method: "GET",
        path: "/api/device/entitlements",
        tags,
        summary: "What this device's account holds",
        description:
          "Products held now (with whether this device holds a key of its own for each), live subscriptions, bundles, the device this key last checked a license from, and the account. A product-scoped key sees its product.",
      },
      example: {
        listed: async (context) => [
          { list: "products", row: { id: await exampleHeldProduct(context) } },
          {
            list: "subscriptions",
            row: {
              id: await exampleSubscription(context),
            },
          },
          { list: "bundles", row: { id: await exampleHeldBundle(context) } },
        ],
      },
    })
    .input(z.object({}))
    .output(DeviceEntitlementsData)
    .query(({ ctx }) => deviceEntitlements(ctx.db, ctx.caller)),

  bundles: accountProcedure
    .meta({
      ability: "device.entitlements",
      openapi: { method: "GET", path: "/api/bundles", tags, summary: "Bundles the account holds, with their products" },
      example: { listed: async (context) => [{ list: "bundles", row: { id: await exampleHeldBundle(context) } }] },
    })
    .input(z.object({}))
    .output(BundlesData)
    .query(async ({ ctx }) => ({ bundles: await heldBundles(ctx.db, ctx.caller) })),

  bulkActivate: accountProcedure
    .meta({
      ability: "device.activate",
      openapi: {
        method: "POST",
        path: "/api/device/bulk-activate",
        tags,
        summary: "Keys of this device's own for every product held",
        description:
          "One product-scoped device key per product the account holds (the caller's product, for a product-scoped key), with the device abilities the caller holds; each plain key appears only in this answer. All or nothing: when a product's scope has no free slot (3 live keys, none a device key of this client to replace) nothing is issued (409 `api_key_limit_reached`). Activating again replaces the keys this caller issued before.",
      },
      errors: ["api_key_limit_reached"],
      destructive: true,
    })
    .input(z.object({}))
    .output(BulkActivateData)
    .mutation(({ ctx }) => bulkActivate(ctx.db, deviceKey(ctx.caller), ctx.keyBrand)),

  install: accountProcedure
    .meta({
      ability: "device.install",
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/device/installs",
        tags,
        summary: "Record an install",
        description:
          "This device installed `version` of a product the account holds. A retried report (same key, product, version and `installed_at`) is the same record.",
      },
      errors: ["not_found", "product_api_key_scope_required", "product_entitlement_required"],
      example: { build: ({ productId }) => ({ body: { product_id: productId, version: "1.0.0" } }) },
    })
    .input(InstallRecordInput)
    .output(InstallRecordData)
    .mutation(({ ctx, input }) => recordInstall(ctx.db, deviceKey(ctx.caller), input)),

  usage: accountProcedure
    .meta({
      ability: "device.usage",
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/api/device/usage",
        tags,
        summary: "Upload daily usage",
        description:
          "1 to 200 days of launches (0 to 1,000,000) and optional command counts per product, stored only when `consent` is true. One record per account, product, device key and date: a day uploaded again overwrites it. A bad day (a product the account does not hold, a date in the future, a product and date twice) rejects the whole upload with 422, and nothing is stored.",
      },
      example: {
        build: ({ productId }) => ({
          body: { consent: true, days: [{ product_id: productId, usage_date: today(), launches: 3 }] },
        }),
      },
    })
    .input(UsageInput)
    .output(UsageData)
    .mutation(({ ctx, input }) => uploadUsage(ctx.db, deviceKey(ctx.caller), input)),

  logout: accountProcedure
    .meta({
      ability: "any-key",
      successStatus: 204,
      revokesKey: true,
      openapi: {
        method: "POST",
        path: "/api/cli/device/logout",
        tags,
        summary: "Sign the command-line client out",
        description: "Revokes the key it is called with: every later request with it gets 401 `invalid_api_key`.",
      },
      example: { build: async (context) => ({ key: await spareKey(context) }) },
    })
    .input(z.object({}))
    .output(z.void())
    .mutation(({ ctx }) => logout(ctx.db, deviceKey(ctx.caller))),

  /** The devices page (the `manage_url` of a device-limit 409): the account's devices and their seats. */
  seats: sessionProcedure
    .meta({
      ability: "signed-in",
      example: { listed: async (context) => [{ list: "", row: { device_id: await exampleSeat(context) } }] },
    })
    .output(z.array(AccountDeviceData))
    .query(({ ctx }) => listDevices(ctx.db, ctx.caller.accountId)),

  release: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(DeviceIdInput)
    .output(ReleasedDeviceData)
    .mutation(({ ctx, input }) => deactivateDevice(ctx.db, ctx.caller.accountId, input.id)),

  /** The product page: keep one of the account's devices off a product (the operator's `policy:revoke`). */
  block: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(BlockDeviceInput)
    .output(BlockedDeviceData)
    .mutation(({ ctx, input }) => blockDevice(ctx.db, ctx.caller.accountId, input.id, input.product)),

  /** The devices page: lift a block the person made; a block of the seller's stays. */
  unblock: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(BlockDeviceInput)
    .output(UnblockedDeviceData)
    .mutation(({ ctx, input }) => unblockDevice(ctx.db, ctx.caller.accountId, input.id, input.product)),
});
