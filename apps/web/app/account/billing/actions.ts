"use server";

import { DomainError } from "@shelf/api";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { dateFormatter } from "../../../src/format";
import { failedForm, refusalOf } from "../../../src/forms/errors";
import { actOnPostedRow, postedId } from "../../../src/forms/settle";
import type { FormState } from "../../../src/forms/state";

/** Stops a subscription renewing at the end of its period (`subscription:cancel --at-period-end`). */
export async function cancelSubscriptionAction(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/account/billing", (caller, id) => caller.subscriptions.cancel({ id }));
}

/** Renews again a subscription cancelled at period end (`subscription:resume`). */
export async function resumeSubscriptionAction(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/account/billing", (caller, id) => caller.subscriptions.resume({ id }));
}

/** Makes one of the person's cards the default: renewals move to it. */
export async function makeDefaultCardAction(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/account/billing", (caller, id) => caller.orders.makeDefaultCard({ id }));
}

/** Removes one of the person's cards (after a confirmation); the next card becomes the default. */
export async function removeCardAction(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/account/billing", (caller, id) => caller.orders.removeCard({ id }));
}

/**
 * Withdraws from an order within the withdrawal period: files a support report of kind `refund_request` (support
 * decides and refunds). Only an order of this account that `can_withdraw`, once; the page then says so at the order. A
 * refusal (the period ended meanwhile, a request already sent from another tab, a reason too long) is said on the form,
 * which keeps the reason typed.
 */
export async function withdrawOrderAction(_state: FormState, form: FormData): Promise<FormState> {
  const session = await requireSession("/account/billing");
  const id = postedId(form);
  const caller = await pageCaller(session);
  const reason = String(form.get("reason") ?? "").trim();
  let order: { id: number; number: string };
  try {
    if (id === null) throw new DomainError("order_not_found");
    ({ order } = await caller.orders.show({ order: id }));
    await caller.reports.withdraw({ order: order.id, ...(reason ? { reason } : {}) });
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal instanceof DomainError && refusal.code === "withdrawal_already_requested") {
      const [t, date] = await Promise.all([getTranslations("withdrawal"), dateFormatter()]);
      const at = refusal.details?.withdrawal_requested_at;
      return {
        status: "failed",
        message: t("already", { date: date(typeof at === "string" ? at : null) }),
        fields: {},
        code: refusal.code,
      };
    }
    if (refusal instanceof DomainError && (refusal.code === "conflict" || refusal.code === "order_not_found")) {
      const t = await getTranslations("billing");
      return { status: "failed", message: t("withdrawClosed"), fields: {}, code: refusal.code };
    }
    return failedForm(error);
  }
  redirect(`/account/billing?withdrawn=${encodeURIComponent(order.number)}#order-${order.id}`);
}
