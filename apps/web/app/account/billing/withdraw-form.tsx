"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { FormMessage } from "../../../src/forms/form-message";
import { keepTyped } from "../../../src/forms/keep-typed";
import { idle } from "../../../src/forms/state";
import { withdrawOrderAction } from "./actions";

/** The withdrawal from one order: an optional reason, kept after a refusal. */
export function WithdrawForm({ orderId }: { orderId: number }) {
  const t = useTranslations("billing");
  const [state, action, pending] = useActionState(withdrawOrderAction, idle);
  const reasonErrors = state.status === "failed" ? state.fields.reason : undefined;
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      <FormMessage state={state} />
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
      <button type="submit" className="button danger small" disabled={pending}>
        {t("withdrawSubmit")}
      </button>
    </form>
  );
}
