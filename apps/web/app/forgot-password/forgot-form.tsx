"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef } from "react";
import { TextField } from "../../src/components/text-field";
import { keepTyped } from "../../src/forms/keep-typed";
import { idle } from "../../src/forms/state";
import { requestResetAction } from "./actions";

/** The email to send a "forgot password" link to; what was typed stays after a refusal. */
export function ForgotForm() {
  const t = useTranslations("recovery");
  const [state, action, pending] = useActionState(requestResetAction, idle);
  const message = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (state.status !== "idle") message.current?.focus();
  }, [state]);
  if (state.status === "done") {
    return (
      <div className="stack">
        <p className="notice" role="status" tabIndex={-1} ref={message}>
          {t("sent", { email: state.data.email })}
        </p>
        <p className="muted">{t("sentHint")}</p>
        <p>
          <a href="/sign-in">{t("backToSignIn")}</a>
        </p>
      </div>
    );
  }
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      {state.status === "failed" && (
        <p className="error" role="alert" tabIndex={-1} ref={message}>
          {state.message}
        </p>
      )}
      <TextField
        id="email"
        name="email"
        label={t("email")}
        type="email"
        autoComplete="email"
        required
        maxLength={254}
        errors={fields.email}
      />
      <button type="submit" className="button" disabled={pending}>
        {pending ? t("sending") : t("send")}
      </button>
    </form>
  );
}
