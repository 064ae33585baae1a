import { z } from "zod";
import { MAX_PASSWORD_LENGTH } from "../../schemas/common";

export const CreateAccountInput = z.object({
  email: z.string().trim().max(254).pipe(z.email()),
  name: z.string().trim().min(1).max(200).nullish(),
  password: z.string().min(8).max(MAX_PASSWORD_LENGTH).nullish(),
  language: z.enum(["en", "ko"]).nullish(),
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

export const SignUpInput = z.object({
  email: z.string().trim().max(254).pipe(z.email()),
  name: z.string().trim().max(200).optional(),
  password: z.string().min(8).max(MAX_PASSWORD_LENGTH),
  /** The pages' language at sign-up: the account's mails are written in it. */
  language: z.enum(["en", "ko"]).optional(),
  /** The "I accept the terms and the privacy policy" box, ticked. */
  accept_terms: z.boolean().optional(),
});
export type SignUpInput = z.input<typeof SignUpInput>;

export const ChangePasswordInput = z.object({
  current_password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  new_password: z.string().min(8).max(MAX_PASSWORD_LENGTH),
});
export type ChangePasswordInput = z.input<typeof ChangePasswordInput>;

export const ChangedPasswordData = z.object({
  /** The account's other sessions that the change ended. */
  ended_sessions: z.number().int(),
});

/** The name the pages greet the person by: empty clears it. */
export const ChangeNameInput = z.object({ name: z.string().trim().max(200) });
export type ChangeNameInput = z.input<typeof ChangeNameInput>;

export const MeData = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string().nullable(),
  /** Whether the person followed the link mailed to the address (sign-up, or the change to it). */
  email_verified: z.boolean(),
});

/** A change of email: the current password, and the new address, which a mailed link must confirm. */
export const EmailChangeInput = z.object({
  current_password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  new_email: z.string().trim().max(254).pipe(z.email()),
});
export type EmailChangeInput = z.input<typeof EmailChangeInput>;

/** An email link's secret, as the page read it from the link's fragment. */
export const EmailLinkInput = z.object({ token: z.string().min(1).max(128) });

/** Deleting the account: the current password, and the account's email typed again. */
export const DeleteAccountInput = z.object({
  current_password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  confirm_email: z.string().trim().max(254),
});
export type DeleteAccountInput = z.input<typeof DeleteAccountInput>;

export const PasswordResetRequestInput = z.object({ email: z.string().trim().max(254).pipe(z.email()) });

export const PasswordResetInput = z.object({
  token: z.string().min(1).max(128),
  new_password: z.string().min(8).max(MAX_PASSWORD_LENGTH),
});
