import { redirect } from "next/navigation";

/** The pass check's `renewal_url`: subscriptions and the pass are on the billing page. */
export default function SubscriptionsPage(): never {
  redirect("/account/billing#subscriptions");
}
