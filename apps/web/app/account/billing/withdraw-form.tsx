"use client";

import { useTranslations } from "next-intl";
import { AccountForm, useFormAction } from "../../../src/forms/account-form";
import { withdrawOrderAction } from "./actions";

/** The withdrawal from one order: an optional reason, kept after a refusal. */
export function WithdrawForm({ orderId }: { orderId: number }) {
  const t = useTranslations("billing");
  const form = useFormAction(withdrawOrderAction);
  const reasonErrors = form.fields.reason;
  return (
    <AccountForm form={form} submit={t("withdrawSubmit")} button="button danger small">
      <input type="hidden" name="id" value={orderId} />
      <p className="muted small">{t("withdrawLead")}</p>
      <label htmlFor={`reason-${orderId}`}>{t("reason")}</label>
      <textarea
        id={`reason-${orderId}`}
        name="reason"
        rows={3}
        maxLength={10000}
        aria-invalid={reasonErrors ? true : undefined}
      />
    </AccountForm>
  );
}
