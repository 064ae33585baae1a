"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef } from "react";
import { TextField } from "../../../../src/components/text-field";
import { FormMessage } from "../../../../src/forms/form-message";
import { idle } from "../../../../src/forms/state";
import { changePasswordAction } from "./actions";

export function PasswordForm() {
  const t = useTranslations("security");
  const [state, action, pending] = useActionState(changePasswordAction, idle);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "done") form.current?.reset();
  }, [state]);
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} ref={form} className="stack">
      <FormMessage state={state} done={(data) => t("changed", { count: data.endedSessions })} />
      <TextField
        id="current-password"
        name="current_password"
        label={t("current")}
        type="password"
        autoComplete="current-password"
        required
        maxLength={1024}
        errors={fields.current_password}
      />
      <TextField
        id="new-password"
        name="new_password"
        label={t("new")}
        hint={t("hint")}
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        maxLength={1024}
        errors={fields.new_password}
      />
      <button type="submit" className="button" disabled={pending}>
        {pending ? t("submitting") : t("submit")}
      </button>
    </form>
  );
}
