"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useState } from "react";
import { PasswordField } from "../../src/components/text-field";
import { FormMessage } from "../../src/forms/form-message";
import { keepTyped } from "../../src/forms/keep-typed";
import { LinkOutcome, useLinkSecret } from "../../src/forms/link-secret";
import { idle } from "../../src/forms/state";
import { checkResetLink, resetPasswordAction } from "./actions";

/**
 * The new password. The link's secret is in the address's fragment, which browsers never send: it is read here, put
 * in the form, and taken out of the address bar (and so out of the history). The server is asked first whether the
 * link still works, so that a used or expired one says so before a password is typed.
 */
export function ResetForm() {
  const t = useTranslations("recovery");
  const [state, action, pending] = useActionState(resetPasswordAction, idle);
  const token = useLinkSecret();
  const [works, setWorks] = useState<boolean | null>(null);
  useEffect(() => {
    if (token !== null) checkResetLink(token).then(setWorks, () => setWorks(true));
  }, [token]);
  const answered = state.status !== "idle";
  if (state.status === "done") {
    return (
      <LinkOutcome
        focus={answered}
        message={t("reset", { count: state.data.endedSessions })}
        next={
          <a href="/sign-in" className="button">
            {t("signIn")}
          </a>
        }
      />
    );
  }
  if (works === false || (state.status === "failed" && state.code === "reset_link_invalid")) {
    return (
      <LinkOutcome
        failed
        focus={answered}
        message={t("linkInvalid")}
        next={<a href="/forgot-password">{t("askAgain")}</a>}
      />
    );
  }
  if (works === null) {
    return (
      <p className="muted" role="status">
        {t("checkingLink")}
      </p>
    );
  }
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      <FormMessage state={state} />
      <input type="hidden" name="token" value={token ?? ""} />
      <PasswordField
        id="new-password"
        name="new_password"
        label={t("newPassword")}
        hint={t("newPasswordHint")}
        fresh
        errors={fields.new_password}
      />
      <button type="submit" className="button" disabled={pending}>
        {pending ? t("setting") : t("set")}
      </button>
    </form>
  );
}
