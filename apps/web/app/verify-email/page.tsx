import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { VerifyForm } from "./verify-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("email"))("followTitle") };
}

/** Where the links of the verification and change-of-email mails lead: one press confirms the address. */
export default async function VerifyEmailPage() {
  const t = await getTranslations("email");
  return (
    <section className="narrow card">
      <h1>{t("followTitle")}</h1>
      <p className="muted">{t("followLead")}</p>
      <VerifyForm />
    </section>
  );
}
