"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { TextField } from "../../src/components/text-field";
import { FormMessage } from "../../src/forms/form-message";
import { keepTyped } from "../../src/forms/keep-typed";
import { idle } from "../../src/forms/state";
import { requestResetAction } from "./actions";

/** The email to send a "forgot password" link to; what was typed stays after a refusal. */
export function ForgotForm() {
  const t = useTranslations("recovery");
  const [state, action, pending] = useActionState(requestResetAction, idle);
  if (state.status === "done") {
    return (
      <div className="stack">
        <FormMessage state={state} done={(data) => t("sent", { email: data.email })} />
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
      <FormMessage state={state} />
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
