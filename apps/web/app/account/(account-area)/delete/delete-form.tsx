"use client";

import { useTranslations } from "next-intl";
import { PasswordField, TextField } from "../../../../src/components/text-field";
import { AccountForm, useFormAction } from "../../../../src/forms/account-form";
import { deleteAccountAction } from "./actions";

/** The password and the account's email typed again; what was typed stays after a refusal. */
export function DeleteForm({ email }: { email: string }) {
  const t = useTranslations("deletion");
  const form = useFormAction(deleteAccountAction);
  return (
    <AccountForm form={form} submit={t("delete")} submitting={t("deleting")} button="button danger">
      <TextField
        id="confirm-email"
        name="confirm_email"
        label={t("confirmLabel", { email })}
        type="text"
        autoComplete="off"
        spellCheck={false}
        required
        maxLength={254}
        errors={form.fields.confirm_email}
      />
      <PasswordField
        id="delete-current-password"
        name="current_password"
        label={t("password")}
        errors={form.fields.current_password}
      />
    </AccountForm>
  );
}
