"use client";

import { signIn } from "next-auth/react";
import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef, useState } from "react";
import { EmailField, PasswordField, TextField } from "../../src/components/text-field";
import { keepTyped } from "../../src/forms/keep-typed";
import { idle } from "../../src/forms/state";
import { signUpAction } from "./actions";

/** Sign-up: the account is made by a server action, then the browser signs in with the same email and password. */
export function SignUpForm({
  returnTo,
  termsUrl,
  privacyUrl,
}: {
  returnTo: string;
  /** The deployment's terms and privacy policy: when either is published, the person accepts them here. */
  termsUrl?: string;
  privacyUrl?: string;
}) {
  const t = useTranslations("signUp");
  const legal = useTranslations("terms");
  const [state, action, pending] = useActionState(signUpAction, idle);
  const [signInFailed, setSignInFailed] = useState(false);
  const credentials = useRef<{ email: string; password: string } | null>(null);
  const alert = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (state.status === "failed") alert.current?.focus();
    if (state.status !== "done" || !credentials.current) return;
    const { email, password } = credentials.current;
    credentials.current = null;
    signIn("credentials", { email, password, redirect: false })
      .then((result) => {
        if (result?.ok && !result.error) window.location.assign(returnTo);
        else setSignInFailed(true);
      })
      .catch(() => setSignInFailed(true));
  }, [state, returnTo]);

  const fields = state.status === "failed" ? state.fields : {};
  if (signInFailed) {
    return (
      <p className="notice" role="status">
        {t("createdSignIn")} <a href="/sign-in">{t("signInLink")}</a>
      </p>
    );
  }
  const send = (form: FormData) => {
    credentials.current = { email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") };
    action(form);
  };
  return (
    <form action={send} onSubmit={keepTyped(send)} className="stack">
      {state.status === "failed" && (
        <p className="error" role="alert" tabIndex={-1} ref={alert}>
          {state.message}
          {state.code === "conflict" && (
            <>
              {" "}
              <a href={`/sign-in?callbackUrl=${encodeURIComponent(returnTo)}`}>{t("signInInstead")}</a>
            </>
          )}
        </p>
      )}
      <TextField
        id="name"
        name="name"
        label={
          <>
            {t("name")} <span className="muted">{t("optional")}</span>
          </>
        }
        type="text"
        autoComplete="name"
        maxLength={200}
        errors={fields.name}
      />
      <EmailField id="email" name="email" label={t("email")} errors={fields.email} />
      <PasswordField
        id="password"
        name="password"
        label={t("password")}
        hint={t("passwordHint")}
        fresh
        errors={fields.password}
      />
      {(termsUrl || privacyUrl) && (
        <div className="field">
          <label className="check">
            <input
              type="checkbox"
              name="accept_terms"
              required
              aria-invalid={fields.accept_terms ? true : undefined}
              aria-describedby={fields.accept_terms ? "accept-terms-error" : undefined}
            />
            <span>
              {termsUrl && privacyUrl
                ? legal.rich("acceptBoth", {
                    terms: (words) => <a href={termsUrl}>{words}</a>,
                    privacy: (words) => <a href={privacyUrl}>{words}</a>,
                  })
                : legal.rich(termsUrl ? "acceptTerms" : "acceptPrivacy", {
                    link: (words) => <a href={termsUrl ?? privacyUrl}>{words}</a>,
                  })}
            </span>
          </label>
          {fields.accept_terms && (
            <p className="field-error" id="accept-terms-error">
              {legal("required")}
            </p>
          )}
        </div>
      )}
      <button type="submit" className="button" disabled={pending || state.status === "done"}>
        {pending || state.status === "done" ? t("submitting") : t("submit")}
      </button>
    </form>
  );
}
