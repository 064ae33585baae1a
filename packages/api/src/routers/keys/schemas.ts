import { z } from "zod";
import { accountAbilities } from "../../abilities";

/** A key as its owner sees it in the key list: never its hash, never the plain value. */
export const KeyListItem = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  /** The first 14 characters of the key. */
  prefix: z.string(),
  abilities: z.array(z.string()),
  kind: z.enum(["created", "device"]),
  /** The client a device sign-in key belongs to. */
  client: z.string().nullable(),
  product: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  /** The client address of the last recorded use (recorded with `last_used_at`). */
  last_used_address: z.string().nullable(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type KeyListItem = z.infer<typeof KeyListItem>;

/** How many of a scope's key slots are taken: account-wide keys, and each product's keys, count separately. */
export const KeyScopeSlots = z.object({
  product: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  used: z.number().int(),
  free: z.number().int(),
  limit: z.number().int(),
});
export type KeyScopeSlots = z.infer<typeof KeyScopeSlots>;

export const KeyListData = z.object({
  keys: z.array(KeyListItem),
  /** Account-wide first, then every product of the library and every product that has keys. */
  scopes: z.array(KeyScopeSlots),
  /** Keys revoked or expired, the most recently ended first (the newest 50): listed, never usable again. */
  ended: z.array(KeyListItem),
});
export type KeyListData = z.infer<typeof KeyListData>;

export const CreateOwnKeyInput = z.object({
  name: z.string().trim().min(1).max(100),
  abilities: z
    .array(z.enum(accountAbilities))
    .min(1)
    .refine((list) => new Set(list).size === list.length, "must not repeat an ability"),
  product_id: z.number().int().positive().nullable().default(null),
  expires_at: z.iso.datetime({ offset: true }).nullable().default(null),
  /** The key form's one-time token: a second key from the same form is refused (409 `conflict`). */
  form_token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,64}$/)
    .optional(),
});
export type CreateOwnKeyInput = z.input<typeof CreateOwnKeyInput>;

export const CreatedKeyData = z.object({
  /** The plain key: shown this once, never stored. */
  key: z.string(),
  record: KeyListItem,
});
export type CreatedKeyData = z.infer<typeof CreatedKeyData>;

export const KeyIdInput = z.object({ id: z.number().int().positive() });
