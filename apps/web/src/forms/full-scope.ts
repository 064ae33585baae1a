import { getTranslations } from "next-intl/server";
import type { FormState } from "./state";

type Failed = Extract<FormState<never>, { status: "failed" }>;

/**
 * A refusal for want of a key slot, said of the scope that is full (by name) with a link to that scope's keys, where
 * one can be revoked. Any other refusal is left as it is.
 */
export async function namingFullScope(failed: Failed, scope: { value: string; name: string }): Promise<Failed> {
  if (failed.code !== "api_key_limit_reached") return failed;
  const t = await getTranslations("keys");
  return {
    ...failed,
    message: t("scopeFullError", { scope: scope.name }),
    link: {
      href: `/settings/api-keys?scope=${encodeURIComponent(scope.value)}#keys-title`,
      label: t("scopeKeysLink", { scope: scope.name }),
    },
  };
}
