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
