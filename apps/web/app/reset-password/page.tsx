import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ResetForm } from "./reset-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("recovery"))("resetTitle") };
}

/** Where a "forgot password" mail's link leads: a new password, once; every session of the account then ends. */
export default async function ResetPasswordPage() {
  const t = await getTranslations("recovery");
  return (
    <section className="narrow card">
      <h1>{t("resetTitle")}</h1>
      <p className="muted">{t("resetLead")}</p>
      <ResetForm />
    </section>
  );
}
