"use client";

import { signIn } from "next-auth/react";
import { useTranslations } from "next-intl";
import { type FormEvent, useRef, useState } from "react";
import { PasswordField, TextField } from "../../src/components/text-field";

/**
 * Email and password through next-auth's credentials sign-in (its CSRF token, its cookie). A refusal never says
 * which of the two was wrong; throttling says how long to wait.
 */
export function SignInForm({ returnTo, email: initialEmail = "" }: { returnTo: string; email?: string }) {
  const t = useTranslations("signIn");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const alert = useRef<HTMLParagraphElement>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    }).catch(() => null);
    if (result?.ok && !result.error) {
      // The return path, not next-auth's absolute URL: that names the configured host, maybe not this one.
      window.location.assign(returnTo);
      return;
    }
    setPending(false);
    const throttled = /^Throttled:(\d+)$/.exec(result?.error ?? "");
    if (throttled) setError(t("throttled", { minutes: Math.max(1, Math.ceil(Number(throttled[1]) / 60)) }));
    else if (result?.error === "CredentialsSignin") setError(t("invalid"));
    else setError(t("failed"));
    requestAnimationFrame(() => alert.current?.focus());
  }

  return (
    // method="post": a press of Enter before the script has loaded must never put the password in the address.
    <form onSubmit={submit} method="post" className="stack">
      {error && (
        <p className="error" role="alert" tabIndex={-1} ref={alert} id="sign-in-error">
          {error}
        </p>
      )}
      <TextField
        id="email"
        name="email"
        label={t("email")}
        type="email"
        autoComplete="username"
        required
        maxLength={254}
        defaultValue={initialEmail}
      />
      <PasswordField id="password" name="password" label={t("password")} />
      <button type="submit" className="button" disabled={pending}>
        {pending ? t("submitting") : t("submit")}
      </button>
    </form>
  );
}
