"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { TextField } from "../../../../src/components/text-field";
import { FormMessage } from "../../../../src/forms/form-message";
import { keepTyped } from "../../../../src/forms/keep-typed";
import { idle } from "../../../../src/forms/state";
import { changeEmailAction } from "./actions";

/** A change of email: the new address and the current password; the new address stays typed after a refusal. */
export function EmailForm() {
  const t = useTranslations("email");
  const [state, action, pending] = useActionState(changeEmailAction, idle);
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      <FormMessage state={state} done={(data) => t("changeSent", { email: data.email })} />
      <TextField
        id="new-email"
        name="new_email"
        label={t("newEmail")}
        hint={t("newEmailHint")}
        type="email"
        autoComplete="email"
        required
        maxLength={254}
        errors={fields.new_email}
      />
      <TextField
        id="email-current-password"
        name="current_password"
        label={t("password")}
        type="password"
        autoComplete="current-password"
        required
        maxLength={1024}
        errors={fields.current_password}
      />
      <button type="submit" className="button" disabled={pending}>
        {pending ? t("changing") : t("change")}
      </button>
    </form>
  );
}
