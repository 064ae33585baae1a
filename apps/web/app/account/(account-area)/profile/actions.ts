"use server";

import { accountEmail, ValidationError } from "@shelf/api";
import { getLocale, getTranslations } from "next-intl/server";
import { emailDeps } from "../../../../src/auth/email-deps";
import { pageCaller, requireSession } from "../../../../src/auth/session";
import { failedForm, refusalOf } from "../../../../src/forms/errors";
import type { FormState } from "../../../../src/forms/state";
import { throttledForm } from "../../../../src/forms/throttled";
import { getRuntime } from "../../../../src/runtime";

async function pageLanguage(): Promise<"en" | "ko"> {
  return (await getLocale()) === "ko" ? "ko" : "en";
}

/** "Send again": a new verification link to the account's address (three mails an hour per account). */
export async function resendVerificationAction(
  _state: FormState<{ sent: boolean }>,
  _form: FormData,
): Promise<FormState<{ sent: boolean }>> {
  const session = await requireSession("/account/profile");
  try {
    const result = await accountEmail.sendVerificationMail(
      getRuntime().db,
      emailDeps(),
      session.accountId,
      await pageLanguage(),
    );
    return { status: "done", data: result };
  } catch (error) {
    return (await throttledForm(error)) ?? failedForm(error);
  }
}

/**
 * A change of email: the current password, then a link to the new address; the address changes when it is followed.
 * The form keeps the new address typed after a refusal.
 */
export async function changeEmailAction(
  _state: FormState<{ email: string }>,
  form: FormData,
): Promise<FormState<{ email: string }>> {
  const session = await requireSession("/account/profile");
  try {
    const result = await accountEmail.requestEmailChange(getRuntime().db, emailDeps(), session.accountId, {
      current_password: String(form.get("current_password") ?? ""),
      new_email: String(form.get("new_email") ?? ""),
      language: await pageLanguage(),
    });
    return { status: "done", data: result };
  } catch (error) {
    const throttled = await throttledForm(error);
    if (throttled) return throttled;
    const refusal = refusalOf(error);
    const said = refusal instanceof ValidationError ? refusal.errors.new_email?.[0] : undefined;
    if (said === "is used by another account" || said === "is already the email of this account") {
      const t = await getTranslations("email");
      const message = said === "is used by another account" ? t("inUse") : t("same");
      return { status: "failed", message, fields: { new_email: [message] } };
    }
    return failedForm(error);
  }
}

/** Changes the password (the current one checked and counted like a sign-in) and ends every other session. */
export async function changePasswordAction(
  _state: FormState<{ endedSessions: number }>,
  form: FormData,
): Promise<FormState<{ endedSessions: number }>> {
  const session = await requireSession("/account/profile");
  try {
    const result = await (await pageCaller(session)).account.changePassword({
      current_password: String(form.get("current_password") ?? ""),
      new_password: String(form.get("new_password") ?? ""),
    });
    return { status: "done", data: { endedSessions: result.ended_sessions } };
  } catch (error) {
    return failedForm(error);
  }
}

/** Changes the name the pages greet the person by (empty: none). */
export async function changeNameAction(
  _state: FormState<{ name: string | null }>,
  form: FormData,
): Promise<FormState<{ name: string | null }>> {
  const session = await requireSession("/account/profile");
  try {
    const result = await (await pageCaller(session)).account.changeName({ name: String(form.get("name") ?? "") });
    return { status: "done", data: { name: result.name } };
  } catch (error) {
    return failedForm(error, { name: (await getTranslations("profile"))("nameInvalid") });
  }
}
