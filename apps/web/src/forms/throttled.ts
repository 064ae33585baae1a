import { DomainError } from "@shelf/api";
import { getTranslations } from "next-intl/server";
import { refusalOf } from "./errors";

/**
 * A refusal of too many mails or password checks as the form's answer, with the minutes to wait, in the page's
 * language; null for any other error (the form answers it its own way).
 */
export async function throttledForm(error: unknown) {
  const refusal = refusalOf(error);
  if (!(refusal instanceof DomainError) || refusal.code !== "rate_limited") return null;
  const t = await getTranslations("email");
  const seconds = Number(refusal.details?.retry_after_seconds ?? 60);
  return {
    status: "failed" as const,
    message: t("throttled", { minutes: Math.max(1, Math.ceil(seconds / 60)) }),
    fields: {},
    code: refusal.code,
  };
}
