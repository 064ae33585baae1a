"use client";

import { useTranslations } from "next-intl";
import { EmailField, PasswordField } from "../../../../src/components/text-field";
import { AccountForm, useFormAction } from "../../../../src/forms/account-form";
import { changeEmailAction } from "./actions";

/** A change of email: the new address and the current password; the new address stays typed after a refusal. */
export function EmailForm() {
  const t = useTranslations("email");
  const form = useFormAction(changeEmailAction);
  return (
    <AccountForm
      form={form}
      done={(data) => t("changeSent", { email: data.email })}
      submit={t("change")}
      submitting={t("changing")}
    >
      <EmailField
        id="new-email"
        name="new_email"
        label={t("newEmail")}
        hint={t("newEmailHint")}
        errors={form.fields.new_email}
      />
      <PasswordField
        id="email-current-password"
        name="current_password"
        label={t("password")}
        errors={form.fields.current_password}
      />
    </AccountForm>
  );
}
