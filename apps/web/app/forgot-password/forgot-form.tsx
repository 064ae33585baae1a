"use client";

import { useTranslations } from "next-intl";
import { EmailField } from "../../src/components/text-field";
import { AccountForm, useFormAction } from "../../src/forms/account-form";
import { FormMessage } from "../../src/forms/form-message";
import { requestResetAction } from "./actions";

/** The email to send a "forgot password" link to; what was typed stays after a refusal. */
export function ForgotForm() {
  const t = useTranslations("recovery");
  const form = useFormAction(requestResetAction);
  if (form.state.status === "done") {
    return (
      <div className="stack">
        <FormMessage state={form.state} done={(data) => t("sent", { email: data.email })} />
        <p className="muted">{t("sentHint")}</p>
        <p>
          <a href="/sign-in">{t("backToSignIn")}</a>
        </p>
      </div>
    );
  }
  return (
    <AccountForm form={form} submit={t("send")} submitting={t("sending")}>
      <EmailField id="email" name="email" label={t("email")} errors={form.fields.email} />
    </AccountForm>
  );
}
