import { grantTypes } from "@shelf/db/enums";
import { z } from "zod";

export const GrantEntitlementInput = z.object({
  accountId: z.number().int().positive(),
  productId: z.number().int().positive(),
  grantType: z.enum(grantTypes).default("grant"),
  accessExpiresAt: z.date().nullish(),
  updatesSupportedUntil: z.date().nullish(),
});
export type GrantEntitlementInput = z.input<typeof GrantEntitlementInput>;

export const EntitlementRecord = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  product_id: z.number().int(),
  grant_type: z.enum(grantTypes),
  source_quantity: z.number().int(),
  access_expires_at: z.string().nullable(),
  updates_supported_until: z.string().nullable(),
  granted_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type EntitlementRecord = z.infer<typeof EntitlementRecord>;
