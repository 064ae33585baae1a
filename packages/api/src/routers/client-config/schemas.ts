import { z } from "zod";
import { DateTime } from "../../schemas/common";

export const ClientConfigRevokedData = z
  .object({ product_id: z.number().int(), device_id: z.string() })
  .meta({ id: "ClientConfigRevokedData" });

export const ClientConfigPolicyData = z
  .object({
    /** How long a client trusts its last license certificate offline. */
    ttl_days: z.number().int(),
    /** How often a client checks its license online. */
    recheck_hours: z.number().int(),
  })
  .meta({ id: "ClientConfigPolicyData" });

/**
 * The signed client policy. `signature` is Ed25519, base64url, over the RFC 8785 canonical JSON of every other field
 * (`kid` included), made with the key `kid` names in the JWKS at /.well-known/jwks.json.
 */
export const ClientConfigData = z
  .object({
    min_client_version: z.string(),
    revoked: z.array(ClientConfigRevokedData),
    policy: ClientConfigPolicyData,
    signed_at: DateTime,
    version: z.number().int(),
    kid: z.string(),
    signature: z.string(),
  })
  .meta({ id: "ClientConfigData" });
export type ClientConfigData = z.infer<typeof ClientConfigData>;

/** A client version the policy may require: plain semver, as `1.4.0` (a leading `v` is dropped). */
export const MinClientVersion = z
  .string()
  .trim()
  .max(64)
  .regex(/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, "must be a version like 1.4.0")
  .transform((version) => version.replace(/^v/, ""));

export const SetPolicyInput = z
  .object({
    minClientVersion: MinClientVersion.optional(),
    recheckHours: z.number().int().min(1).max(8760).optional(),
    ttlDays: z.number().int().min(1).max(365).optional(),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), {
    message: "change at least one setting",
  });
export type SetPolicyInput = z.input<typeof SetPolicyInput>;

export const JwksData = z
  .object({
    keys: z.array(
      z.object({
        kty: z.literal("OKP"),
        crv: z.literal("Ed25519"),
        x: z.string(),
        kid: z.string(),
        alg: z.literal("EdDSA"),
        use: z.literal("sig"),
      }),
    ),
  })
  .meta({ id: "JwksData" });
