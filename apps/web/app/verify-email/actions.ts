"use server";

import { accountEmail, DomainError, ValidationError } from "@shelf/api";
import { CLIENT_ADDRESS_HEADER } from "@shelf/api/host/pages";
import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { emailDeps } from "../../src/auth/email-deps";
import { failedForm, refusalOf } from "../../src/forms/errors";
import type { FormState } from "../../src/forms/state";
import { getRuntime } from "../../src/runtime";

export type FollowedLink = { purpose: "verify" | "change"; email: string };

/**
 * Follows an email link (its secret in the form, read from the link's fragment): verifies the address, or makes the new
 * address the account's. Signed in or not: the link itself is the proof.
 */
export async function followLinkAction(
  _state: FormState<FollowedLink>,
  form: FormData,
): Promise<FormState<FollowedLink>> {
  const token = String(form.get("token") ?? "");
  const address = (await headers()).get(CLIENT_ADDRESS_HEADER);
  const t = await getTranslations("email");
  try {
    if (!token) throw new DomainError("email_link_invalid");
    const followed = await accountEmail.followEmailLink(getRuntime().db, emailDeps(), { token, address });
    return { status: "done", data: { purpose: followed.purpose, email: followed.email } };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal instanceof DomainError && refusal.code === "conflict") {
      return { status: "failed", message: t("takenMeanwhile"), fields: {}, code: refusal.code };
    }
    if (
      (refusal instanceof DomainError && refusal.code === "email_link_invalid") ||
      refusal instanceof ValidationError
    ) {
      // A malformed secret is a link that does not work, like an unknown one.
      return { status: "failed", message: t("linkInvalid"), fields: {}, code: "email_link_invalid" };
    }
    return failedForm(error);
  }
}
