"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef } from "react";
import { TextField } from "../../../src/components/text-field";
import { idle } from "../../../src/forms/state";
import { changePasswordAction } from "./actions";

export function PasswordForm() {
  const t = useTranslations("security");
  const [state, action, pending] = useActionState(changePasswordAction, idle);
  const form = useRef<HTMLFormElement>(null);
  const message = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (state.status === "done") form.current?.reset();
    if (state.status !== "idle") message.current?.focus();
  }, [state]);
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} ref={form} className="stack">
      {state.status === "failed" && (
        <p className="error" role="alert" tabIndex={-1} ref={message}>
          {state.message}
        </p>
      )}
      {state.status === "done" && (
        <p className="notice" role="status" tabIndex={-1} ref={message}>
          {t("changed", { count: state.data.endedSessions })}
        </p>
      )}
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
