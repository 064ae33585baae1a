"use client";

import { useTranslations } from "next-intl";
import { PasswordField } from "../../../../src/components/text-field";
import { AccountForm, useFormAction } from "../../../../src/forms/account-form";
import { changePasswordAction } from "./actions";

export function PasswordForm() {
  const t = useTranslations("security");
  const form = useFormAction(changePasswordAction);
  return (
    <AccountForm
      form={form}
      done={(data) => t("changed", { count: data.endedSessions })}
      submit={t("submit")}
      submitting={t("submitting")}
      forgets
    >
      <PasswordField
        id="current-password"
        name="current_password"
        label={t("current")}
        errors={form.fields.current_password}
      />
      <PasswordField
        id="new-password"
        name="new_password"
        label={t("new")}
        hint={t("hint")}
        fresh
        errors={form.fields.new_password}
      />
    </AccountForm>
  );
}
