import { notFound, redirect } from "next/navigation";
import { pageCaller, requireSession } from "../../../../../../src/auth/session";
import { refusalOf } from "../../../../../../src/forms/errors";

type Props = { params: Promise<{ id: string }> };

/**
 * An order's printable page: its invoice's. A page rather than a route, so that another account's order (or one
 * without an invoice) gets the pages' own 404.
 */
export default async function OrderInvoicePage({ params }: Props) {
  const { id } = await params;
  const session = await requireSession(`/account/billing/orders/${id}/invoice`);
  if (!/^[1-9]\d{0,9}$/.test(id)) notFound();
  const { invoice_id } = await (await pageCaller(session)).orders
    .orderInvoice({ order: Number(id) })
    .catch((error: unknown) => {
      if (refusalOf(error)) notFound();
      throw error;
    });
  redirect(`/account/billing/invoices/${invoice_id}`);
}
