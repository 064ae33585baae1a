import { redirect } from "next/navigation";

/** A subscription's `update_card_url` and `update_payment_method_url`: the cards on file, on the billing page. */
export default function PaymentMethodPage(): never {
  redirect("/account/billing#cards");
}
