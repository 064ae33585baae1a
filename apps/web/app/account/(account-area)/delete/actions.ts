"use server";

import { accountDeletion, ValidationError } from "@shelf/api";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { requireSession } from "../../../../src/auth/session";
import { failedForm, refusalOf } from "../../../../src/forms/errors";
import type { FormState } from "../../../../src/forms/state";
import { throttledForm } from "../../../../src/forms/throttled";
import { getRuntime } from "../../../../src/runtime";

/**
 * Deletes the account (the password, and its email typed again): anonymised in one transaction, every session ended,
 * then the page that says what happened.
 */
export async function deleteAccountAction(_state: FormState, form: FormData): Promise<FormState> {
  const session = await requireSession("/account/delete");
  try {
    await accountDeletion.deleteAccount(getRuntime().db, getRuntime().guessLimits.signIn, session.accountId, {
      current_password: String(form.get("current_password") ?? ""),
      confirm_email: String(form.get("confirm_email") ?? ""),
    });
  } catch (error) {
    const throttled = await throttledForm(error);
    if (throttled) return throttled;
    const refusal = refusalOf(error);
    if (refusal instanceof ValidationError && refusal.errors.confirm_email) {
      const t = await getTranslations("deletion");
      return { status: "failed", message: t("confirmMismatch"), fields: { confirm_email: [t("confirmMismatch")] } };
    }
    return failedForm(error);
  }
  redirect("/account-deleted");
}
