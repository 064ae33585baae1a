"use server";

import { DomainError, recovery } from "@shelf/api";
import { CLIENT_ADDRESS_HEADER } from "@shelf/api/host/pages";
import { headers } from "next/headers";
import { getLocale, getTranslations } from "next-intl/server";
import { failedForm, refusalOf } from "../../src/forms/errors";
import type { FormState } from "../../src/forms/state";
import { getRuntime } from "../../src/runtime";

/**
 * Asks for a "forgot password" mail. The answer is the same whether or not an account has the email; too many
 * requests for one email or from one address are refused (for every email alike).
 */
export async function requestResetAction(
  _state: FormState<{ email: string }>,
  form: FormData,
): Promise<FormState<{ email: string }>> {
  const { db, guessLimits, mailer, baseUrl, log } = getRuntime();
  const address = (await headers()).get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  const email = String(form.get("email") ?? "");
  try {
    await recovery.requestPasswordReset(
      db,
      { limits: guessLimits.recovery, mailer, baseUrl, log },
      { email, address, language: (await getLocale()) === "ko" ? "ko" : "en" },
    );
    return { status: "done", data: { email: email.trim() } };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal instanceof DomainError && refusal.code === "rate_limited") {
      const t = await getTranslations("recovery");
      const seconds = Number(refusal.details?.retry_after_seconds ?? 60);
      return {
        status: "failed",
        message: t("throttled", { minutes: Math.max(1, Math.ceil(seconds / 60)) }),
        fields: {},
        code: "rate_limited",
      };
    }
    return failedForm(error);
  }
}
