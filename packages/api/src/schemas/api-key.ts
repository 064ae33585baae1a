import { z } from "zod";
import { allAbilities } from "../abilities";

/** A key as the operator CLI and the services that issue keys create and describe it. */
export const CreateKeyInput = z.object({
  accountId: z.number().int().positive(),
  kind: z.enum(["created", "device"]).default("created"),
  name: z.string().trim().min(1).max(100).nullish(),
  client: z.string().trim().min(1).max(100).nullish(),
  abilities: z.array(z.enum(allAbilities)).min(1).optional(),
  productId: z.number().int().positive().nullish(),
  expiresAt: z.date().nullish(),
  /** The device key whose bulk activation issues this product key. */
  issuedByKeyId: z.number().int().positive().nullish(),
  formToken: z.string().nullish(),
});
export type CreateKeyInput = z.input<typeof CreateKeyInput>;

export const ApiKeyRecord = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  product_id: z.number().int().nullable(),
  kind: z.enum(["created", "device"]),
  name: z.string().nullable(),
  prefix: z.string(),
  abilities: z.array(z.string()),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;
