import { z } from "zod";
import { MAX_PASSWORD_LENGTH } from "../../schemas/common";

export const CreateAccountInput = z.object({
  email: z.string().trim().max(254).pipe(z.email()),
  name: z.string().trim().min(1).max(200).nullish(),
  password: z.string().min(8).max(MAX_PASSWORD_LENGTH).nullish(),
});
export type CreateAccountInput = z.input<typeof CreateAccountInput>;

export const AccountRecord = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string().nullable(),
  has_password: z.boolean(),
  created_at: z.string(),
});
export type AccountRecord = z.infer<typeof AccountRecord>;
