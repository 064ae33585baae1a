import type { DomainError } from "@shelf/api";
import { getTranslations } from "next-intl/server";

/** A refusal of too many mails or password checks, with the minutes to wait, in the page's language. */
export async function throttledForm(refusal: DomainError) {
  const t = await getTranslations("email");
  const seconds = Number(refusal.details?.retry_after_seconds ?? 60);
  return {
    status: "failed" as const,
    message: t("throttled", { minutes: Math.max(1, Math.ceil(seconds / 60)) }),
    fields: {},
    code: refusal.code,
  };
}
