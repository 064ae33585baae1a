import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { SessionCaller } from "../../auth/caller";
import { DomainError } from "../../errors";
import { queueMail } from "../../mail/outbox";
import type { OrderData } from "../../schemas/order";
import type { SupportReportData } from "./schemas";
import { recordSupportReport } from "./support";

const { orders } = schema;

/** The refusal of a second request, with the date of the first, which the page then shows. */
export function alreadyRequested(at: string | null): DomainError {
  return new DomainError("withdrawal_already_requested", undefined, { withdrawal_requested_at: at });
}

/**
 * Files the withdrawal from an order the caller may withdraw from: marks the order (once: the row's update is the
 * gate, so of two requests at once one wins and the other is refused), opens the refund request for support and
 * queues the buyer's confirmation mail, in one transaction.
 */
export async function fileWithdrawal(
  db: Database,
  caller: SessionCaller,
  order: OrderData,
  reason: string | undefined,
): Promise<SupportReportData> {
  return db.transaction(async (tx) => {
    const [marked] = await tx
      .update(orders)
      .set({ withdrawalRequestedAt: sql`now()` })
      .where(and(eq(orders.id, order.id), eq(orders.accountId, caller.accountId), isNull(orders.withdrawalRequestedAt)))
      .returning({ at: orders.withdrawalRequestedAt });
    if (!marked?.at) {
      const [first] = await tx
        .select({ at: orders.withdrawalRequestedAt })
        .from(orders)
        .where(and(eq(orders.id, order.id), eq(orders.accountId, caller.accountId)));
      throw alreadyRequested(first?.at?.toISOString() ?? null);
    }
    const items = order.items.map((item) => `${item.product_name} x${item.quantity}`).join(", ");
    const filed = await recordSupportReport(tx, null, caller, {
      kind: "refund_request",
      summary: `Withdrawal from order ${order.number}`,
      detail: `Order ${order.number} (id ${order.id}): ${items}; total ${order.total_cents} ${order.currency}.${reason ? `\n\n${reason}` : ""}`,
    });
    await queueMail(tx, {
      accountId: caller.accountId,
      kind: "withdrawal_requested",
      data: {
        number: order.number,
        items: order.items
          .map((item) => (item.quantity > 1 ? `${item.product_name} × ${item.quantity}` : item.product_name))
          .join(", "),
        total_cents: order.total_cents,
        currency: order.currency,
        requested_at: marked.at.toISOString(),
      },
    });
    return filed;
  });
}
