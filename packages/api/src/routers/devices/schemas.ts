import { z } from "zod";
import { DateTime, hasControlCharacter, IdParam } from "../../schemas/common";

export const DeviceEntitlementProductData = z
  .object({
    id: z.number().int(),
    name: z.string(),
    type: z.string(),
    access_source: z.string(),
    /** Whether this device holds a live key of its own for the product (from a bulk activation). */
    has_device_key: z.boolean(),
    license_key_prefix: z.string().nullable(),
    access_expires_at: DateTime.nullable(),
    updates_supported_until: DateTime.nullable(),
  })
  .meta({ id: "DeviceEntitlementProductData" });

export const DeviceSubscriptionData = z
  .object({
    id: z.number().int(),
    product_id: z.number().int().nullable(),
    is_pass: z.boolean(),
    status: z.string(),
    tier: z.string().nullable(),
    starts_at: DateTime,
    ends_at: DateTime.nullable(),
  })
  .meta({ id: "DeviceSubscriptionData" });

export const DeviceBundleData = z
  .object({ id: z.number().int(), name: z.string(), product_ids: z.array(z.number().int()) })
  .meta({ id: "DeviceBundleData" });

export const DeviceInfoData = z
  .object({ id: z.number().int().nullable(), name: z.string().nullable(), activated_at: DateTime.nullable() })
  .meta({ id: "DeviceInfoData" });

export const DeviceUserData = z
  .object({ id: z.number().int(), email: z.string().nullable(), name: z.string().nullable() })
  .meta({ id: "DeviceUserData" });

export const DeviceEntitlementsData = z
  .object({
    products: z.array(DeviceEntitlementProductData),
    subscriptions: z.array(DeviceSubscriptionData),
    bundles: z.array(DeviceBundleData),
    device: DeviceInfoData,
    user: DeviceUserData.nullable(),
  })
  .meta({ id: "DeviceEntitlementsData" });
export type DeviceEntitlementsData = z.infer<typeof DeviceEntitlementsData>;

export const BundlesData = z
  .object({
    bundles: z.array(
      z.object({
        id: z.number().int(),
        slug: z.string(),
        name: z.string(),
        product_ids: z.array(z.number().int()),
        products: z.array(z.object({ id: z.number().int(), name: z.string() })),
      }),
    ),
  })
  .meta({ id: "BundlesData" });

export const ActivatedKeyData = z
  .object({
    product_id: z.number().int(),
    product_name: z.string(),
    /** The plain key, shown only in this answer. */
    key: z.string(),
    prefix: z.string(),
    abilities: z.array(z.string()),
    expires_at: DateTime.nullable(),
  })
  .meta({ id: "ActivatedKeyData" });

export const BulkActivateData = z.object({ keys: z.array(ActivatedKeyData) }).meta({ id: "BulkActivateData" });

const printable = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => !hasControlCharacter(text), { message: "must not contain control characters" });

/** Contract section 8: version at most 64 characters, bundle_id at most 255. */
export const InstallRecordInput = z.object({
  product_id: IdParam,
  version: printable(64),
  bundle_id: printable(255).nullish(),
  /** When the install happened (default: now); at most five minutes ahead of the server's clock. */
  installed_at: DateTime.nullish(),
});
export type InstallRecordInput = z.infer<typeof InstallRecordInput>;

export const InstallRecordData = z
  .object({
    install: z.object({
      id: z.number().int(),
      product_id: z.number().int(),
      version: z.string(),
      bundle_id: z.string().nullable(),
      installed_at: DateTime,
      recorded_at: DateTime,
    }),
  })
  .meta({ id: "InstallRecordData" });

/** Command name to how many times it ran that day: at most 200 commands, names up to 100 characters. */
const Commands = z
  .record(z.string().min(1).max(100), z.number().int().min(0).max(1_000_000))
  .refine((commands) => Object.keys(commands).length <= 200, { message: "must name at most 200 commands" });

/** Contract section 8: 1 to 200 days, launches 0 to 1,000,000. */
export const UsageInput = z.object({
  consent: z.boolean(),
  days: z
    .array(
      z.object({
        product_id: IdParam,
        usage_date: z.iso.date(),
        launches: z.number().int().min(0).max(1_000_000),
        commands: Commands.nullish(),
      }),
    )
    .min(1)
    .max(200),
});
export type UsageInput = z.infer<typeof UsageInput>;

export const UsageData = z
  .object({
    /** Whether the person agreed to share usage; without it nothing is stored. */
    consent: z.boolean(),
    /** Days stored (new or overwritten). */
    stored: z.number().int(),
  })
  .meta({ id: "UsageData" });

/** A device of the account as the devices page shows it, with the products it holds a seat on. */
export const AccountDeviceData = z.object({
  id: z.number().int(),
  device_id: z.string(),
  name: z.string().nullable(),
  activated_at: z.string().nullable(),
  last_seen_at: z.string().nullable(),
  last_app_version: z.string().nullable(),
  products: z.array(
    z.object({
      product_id: z.number().int(),
      product_name: z.string(),
      activated_at: z.string(),
      last_checked_at: z.string(),
    }),
  ),
  /** Products the device is kept off: by the account's owner (who may unblock it) or by the seller. */
  blocked: z.array(
    z.object({
      product_id: z.number().int(),
      product_name: z.string(),
      by: z.enum(["owner", "seller"]),
      blocked_at: z.string(),
    }),
  ),
});

export const DeviceIdInput = z.object({ id: z.number().int().positive() });

export const ReleasedDeviceData = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  device_id: z.string(),
  released_product_ids: z.array(z.number().int()),
});

export const BlockDeviceInput = z.object({ id: z.number().int().positive(), product: z.number().int().positive() });

export const UnblockedDeviceData = z.object({
  product_id: z.number().int(),
  device_id: z.string(),
  version: z.number().int(),
});

export const BlockedDeviceData = z.object({
  product_id: z.number().int(),
  device_id: z.string(),
  seats_released: z.number().int(),
  version: z.number().int(),
});
