"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef, useState } from "react";
import { idle } from "../../src/forms/state";
import { followLinkAction } from "./actions";

/**
 * The link's secret is in the address's fragment, which browsers never send: it is read here, put in the form, and
 * taken out of the address bar. The person presses the button, so a mail scanner that opens links confirms nothing.
 */
export function VerifyForm() {
  const t = useTranslations("email");
  const [state, action, pending] = useActionState(followLinkAction, idle);
  const [token, setToken] = useState<string | null>(null);
  const message = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    const secret = window.location.hash.slice(1);
    setToken(secret);
    if (secret) window.history.replaceState(null, "", window.location.pathname);
    // Another link opened in this tab changes only the fragment: start over with it.
    const reload = () => window.location.reload();
    window.addEventListener("hashchange", reload);
    return () => window.removeEventListener("hashchange", reload);
  }, []);
  useEffect(() => {
    if (state.status !== "idle") message.current?.focus();
  }, [state]);
  if (state.status === "done") {
    return (
      <div className="stack">
        <p className="notice" role="status" tabIndex={-1} ref={message}>
          {state.data.purpose === "change"
            ? t("changed", { email: state.data.email })
            : t("verified", { email: state.data.email })}
        </p>
        <p>
          <a href="/account" className="button">
            {t("toAccount")}
          </a>
        </p>
      </div>
    );
  }
  if (token === "" || state.status === "failed") {
    return (
      <div className="stack">
        <p className="error" role="alert" tabIndex={-1} ref={message}>
          {state.status === "failed" ? state.message : t("linkInvalid")}
        </p>
        <p>
          <a href="/account/profile">{t("askAgain")}</a>
        </p>
      </div>
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
