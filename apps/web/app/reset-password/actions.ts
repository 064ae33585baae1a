"use server";

import { DomainError, recovery } from "@shelf/api";
import { getTranslations } from "next-intl/server";
import { failedForm, refusalOf } from "../../src/forms/errors";
import type { FormState } from "../../src/forms/state";
import { getRuntime } from "../../src/runtime";

/** Sets a new password from a "forgot password" link (its secret in the form): once, and every session ends. */
export async function resetPasswordAction(
  _state: FormState<{ endedSessions: number }>,
  form: FormData,
): Promise<FormState<{ endedSessions: number }>> {
  const token = String(form.get("token") ?? "");
  try {
    if (!token) throw new DomainError("reset_link_invalid");
    const result = await recovery.resetPassword(getRuntime().db, {
      token,
      new_password: String(form.get("new_password") ?? ""),
    });
    return { status: "done", data: { endedSessions: result.ended_sessions } };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal instanceof DomainError && refusal.code === "reset_link_invalid") {
      const t = await getTranslations("recovery");
      return { status: "failed", message: t("linkInvalid"), fields: {}, code: refusal.code };
    }
    const failed = await failedForm(error);
    // The link's secret is no field of the person's: a malformed one is a link that does not work.
    if (failed.fields.token) {
      const t = await getTranslations("recovery");
      return { status: "failed", message: t("linkInvalid"), fields: {}, code: "reset_link_invalid" };
    }
    return failed;
  }
}

/** Whether the link's secret still works, asked before the form is shown (nothing is used up). */
export async function checkResetLink(token: string): Promise<boolean> {
  return typeof token === "string" && recovery.resetLinkWorks(getRuntime().db, token);
}
