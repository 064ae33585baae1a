"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect } from "react";
import { LinkOutcome, useLinkSecret } from "../../src/forms/link-secret";
import { idle } from "../../src/forms/state";
import { followLinkAction } from "./actions";

/**
 * The link's secret is in the address's fragment, which browsers never send: it is read here, put in the form, and
 * taken out of the address bar. The person presses the button, so a mail scanner that opens links confirms nothing.
 */
export function VerifyForm() {
  const t = useTranslations("email");
  const [state, action, pending] = useActionState(followLinkAction, idle);
  const token = useLinkSecret();
  useEffect(() => {
    // Another link opened in this tab changes only the fragment: start over with it.
    const reload = () => window.location.reload();
    window.addEventListener("hashchange", reload);
    return () => window.removeEventListener("hashchange", reload);
  }, []);
  const answered = state.status !== "idle";
  if (state.status === "done") {
    return (
      <LinkOutcome
        focus={answered}
        message={
          state.data.purpose === "change"
            ? t("changed", { email: state.data.email })
            : t("verified", { email: state.data.email })
        }
        next={
          <a href="/account" className="button">
            {t("toAccount")}
          </a>
        }
      />
    );
  }
  if (token === "" || state.status === "failed") {
    return (
      <LinkOutcome
        failed
        focus={answered}
        message={state.status === "failed" ? state.message : t("linkInvalid")}
        next={<a href="/account/profile">{t("askAgain")}</a>}
      />
    );
  }
  return (
    <form action={action} className="stack">
      <input type="hidden" name="token" value={token ?? ""} />
      <button type="submit" className="button" disabled={pending || token === null}>
        {pending ? t("confirming") : t("confirm")}
      </button>
    </form>
  );
}
