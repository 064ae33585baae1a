"use server";

import { accountEmail, accounts } from "@shelf/api";
import { CLIENT_ADDRESS_HEADER } from "@shelf/api/host/pages";
import { headers } from "next/headers";
import { getLocale, getTranslations } from "next-intl/server";
import { emailDeps } from "../../src/auth/email-deps";
import { failedForm } from "../../src/forms/errors";
import type { FormState } from "../../src/forms/state";
import { getRuntime } from "../../src/runtime";

/**
 * Creates an account (argon2id password). Each attempt counts against the address's sign-in allowance, so the form
 * cannot be used to probe for registered emails at speed. A mail with a link that verifies the address goes out; the
 * browser signs in next, through next-auth.
 */
export async function signUpAction(_state: FormState, form: FormData): Promise<FormState> {
  const { db, guessLimits, config } = getRuntime();
  const address = (await headers()).get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  const attempt = await guessLimits.signIn.address.take(`sign-up:${address}`);
  if (!attempt.allowed) {
    const t = await getTranslations("signIn");
    return {
      status: "failed",
      message: t("throttled", { minutes: Math.max(1, Math.ceil(attempt.retryAfterSeconds / 60)) }),
      fields: {},
    };
  }
  const language = (await getLocale()) === "ko" ? "ko" : "en";
  try {
    const account = await accounts.signUp(
      db,
      {
        email: String(form.get("email") ?? ""),
        name: String(form.get("name") ?? "") || undefined,
        password: String(form.get("password") ?? ""),
        language,
        accept_terms: form.get("accept_terms") === "on",
      },
      { termsUrl: config.settings.SHELF_TERMS_URL, privacyUrl: config.settings.SHELF_PRIVACY_URL },
    );
    // The address is unverified until the link of this mail is followed; the account works meanwhile (a banner asks).
    await accountEmail.sendVerificationMail(db, emailDeps(), account.id, language);
    return { status: "done", data: undefined };
  } catch (error) {
    return failedForm(error);
  }
}
