"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { postedId, settleRemoval } from "../../../src/forms/settle";

/** Stops a subscription renewing at the end of its period (`subscription:cancel --at-period-end`). */
export async function cancelSubscriptionAction(form: FormData): Promise<void> {
  const session = await requireSession("/account/billing");
  const id = postedId(form);
  if (id !== null) await settleRemoval(async () => (await pageCaller(session)).subscriptions.cancel({ id }));
  revalidatePath("/account/billing");
}

/** Renews again a subscription cancelled at period end (`subscription:resume`). */
export async function resumeSubscriptionAction(form: FormData): Promise<void> {
  const session = await requireSession("/account/billing");
  const id = postedId(form);
  if (id !== null) await settleRemoval(async () => (await pageCaller(session)).subscriptions.resume({ id }));
  revalidatePath("/account/billing");
}

/**
 * Withdraws from an order within the withdrawal period: files a support report of kind `refund_request` (support
 * decides and refunds). Only an order of this account that `can_withdraw`; the page then says it was filed.
 */
export async function withdrawOrderAction(form: FormData): Promise<void> {
  const session = await requireSession("/account/billing");
  const id = postedId(form);
  const caller = await pageCaller(session);
  const reason = String(form.get("reason") ?? "")
    .trim()
    .slice(0, 10_000);
  const order =
    id === null
      ? null
      : await caller.orders.show({ order: id }).then(
          (shown) => shown.order,
          () => null,
        );
  if (!order) redirect("/account/billing#orders");
  let filed = true;
  await settleRemoval(async () => {
    filed = false;
    await caller.reports.withdraw({ order: order.id, ...(reason ? { reason } : {}) });
    filed = true;
  });
  redirect(filed ? `/account/billing?withdrawn=${encodeURIComponent(order.number)}#orders` : "/account/billing#orders");
}
