"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { resendVerificationAction } from "../../app/account/(account-area)/profile/actions";
import { idle } from "../forms/state";

/** "Send again" for the verification mail, with what happened beside it (sent, or how long to wait). */
export function ResendVerification() {
  const t = useTranslations("email");
  const [state, action, pending] = useActionState(resendVerificationAction, idle);
  return (
    <form action={action} className="inline-form">
      <button type="submit" className="button secondary small" disabled={pending}>
        {pending ? t("sending") : t("sendAgain")}
      </button>
      <span role="status" className="small">
        {state.status === "done" && (state.data.sent ? t("sentAgain") : t("alreadyVerified"))}
        {state.status === "failed" && state.message}
      </span>
    </form>
  );
}
