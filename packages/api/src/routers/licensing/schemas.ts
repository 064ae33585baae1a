import { z } from "zod";
import { DateTime, hasControlCharacter, IdParam } from "../../schemas/common";

/** Identifiers a client reports (device ids, bundle ids): exact text, never trimmed, no control characters. */
const identifier = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => !hasControlCharacter(text) && text.trim() === text, {
      message: "must be printable text without leading or trailing spaces",
    });

/** Contract section 8: bundle_id and device_id at most 255 characters, app_version at most 100. */
export const LicenseCheckInput = z
  .object({
    product_id: IdParam.nullish(),
    bundle_id: identifier(255).nullish(),
    device_id: identifier(255).nullish(),
    /** What the device is called, shown in device lists (an extension of the contract's body). */
    device_name: z.string().trim().min(1).max(255).nullish(),
    app_version: identifier(100).nullish(),
  })
  .superRefine((input, context) => {
    if (input.product_id == null && input.bundle_id == null) {
      context.addIssue({ code: "custom", path: ["product_id"], message: "product_id or bundle_id is required" });
    }
  });
export type LicenseCheckInput = z.infer<typeof LicenseCheckInput>;

/**
 * Why a check came out as it did, stable for clients to branch on (as Keygen's validation codes are): `valid` is the
 * only licensed one.
 */
export const licenseCodes = [
  "valid",
  "not_entitled",
  "access_expired",
  "entitlement_revoked",
  "device_revoked",
  "device_id_required",
  "version_outside_update_window",
] as const;
export type LicenseCode = (typeof licenseCodes)[number];

export const LicenseDeviceData = z
  .object({
    id: z.number().int(),
    /** The identifier the device reports. */
    device_id: z.string(),
    name: z.string().nullable(),
    activated_at: DateTime.nullable(),
    last_seen_at: DateTime.nullable(),
  })
  .meta({ id: "LicenseDeviceData" });
export type LicenseDeviceData = z.infer<typeof LicenseDeviceData>;

const licenseState = {
  product_id: z.number().int(),
  licensed: z.boolean(),
  code: z.enum(licenseCodes),
  message: z.string(),
  access_source: z.string().nullable(),
  access_expires_at: DateTime.nullable(),
  updates_supported_until: DateTime.nullable(),
  /** Whether new releases are still covered: no end, or an end still ahead. */
  update_window_open: z.boolean(),
  device_limit: z.number().int().nullable(),
  devices_used: z.number().int(),
};

export const LicenseCheckData = z
  .object({
    ...licenseState,
    product_name: z.string(),
    bundle_id: z.string().nullable(),
    device: LicenseDeviceData.nullable(),
    checked_at: DateTime,
    /** When the client should check again online (the client policy's recheck interval). */
    recheck_after: DateTime,
    /**
     * A compact JWS (EdDSA, `kid` in its header; verify with the JWKS at /.well-known/jwks.json) naming the account,
     * product, device and expiry: a client trusts it offline until `exp`. Null when not licensed.
     */
    certificate: z.string().nullable(),
    certificate_expires_at: DateTime.nullable(),
  })
  .meta({ id: "LicenseCheckData" });
export type LicenseCheckData = z.infer<typeof LicenseCheckData>;

export const LicenseActivationData = z
  .object({
    device: LicenseDeviceData,
    activated_at: DateTime,
    last_checked_at: DateTime,
    app_version: z.string().nullable(),
  })
  .meta({ id: "LicenseActivationData" });

export const ProductLicenseData = z
  .object({ license: z.object({ ...licenseState, activations: z.array(LicenseActivationData) }) })
  .meta({ id: "ProductLicenseData" });
export type ProductLicenseData = z.infer<typeof ProductLicenseData>;

export const DeviceKeyReleaseData = z
  .object({
    /** The seats of this product the key had checked, now free. */
    released: z.array(LicenseDeviceData),
    key: z.object({ id: z.number().int(), prefix: z.string(), revoked_at: DateTime }),
  })
  .meta({ id: "DeviceKeyReleaseData" });

export const PassCheckData = z
  .object({
    has_active_pass: z.boolean(),
    in_grace_period: z.boolean(),
    expires_at: DateTime.nullable(),
    grace_period_ends_at: DateTime.nullable(),
    grace_warning: z.string().nullable(),
    tier: z.string(),
    features: z.array(z.string()),
    allowed_apps: z.array(z.string()),
    renewal_url: z.string().nullable(),
    message: z.string().nullable(),
  })
  .meta({ id: "PassCheckData" });
export type PassCheckData = z.infer<typeof PassCheckData>;
