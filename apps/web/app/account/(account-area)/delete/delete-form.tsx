"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { TextField } from "../../../../src/components/text-field";
import { FormMessage } from "../../../../src/forms/form-message";
import { keepTyped } from "../../../../src/forms/keep-typed";
import { idle } from "../../../../src/forms/state";
import { deleteAccountAction } from "./actions";

/** The password and the account's email typed again; what was typed stays after a refusal. */
export function DeleteForm({ email }: { email: string }) {
  const t = useTranslations("deletion");
  const [state, action, pending] = useActionState(deleteAccountAction, idle);
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      <FormMessage state={state} />
      <TextField
        id="confirm-email"
        name="confirm_email"
        label={t("confirmLabel", { email })}
        type="text"
        autoComplete="off"
        spellCheck={false}
        required
        maxLength={254}
        errors={fields.confirm_email}
      />
      <TextField
        id="delete-current-password"
        name="current_password"
        label={t("password")}
        type="password"
        autoComplete="current-password"
        required
        maxLength={1024}
        errors={fields.current_password}
      />
      <button type="submit" className="button danger" disabled={pending}>
        {pending ? t("deleting") : t("delete")}
      </button>
    </form>
  );
}
