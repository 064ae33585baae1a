import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { currentSession } from "../../src/auth/session";
import { ForgotForm } from "./forgot-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("recovery"))("forgotTitle") };
}

/** "Forgot password": a link to set a new one, mailed to the account's address. */
export default async function ForgotPasswordPage() {
  if (await currentSession()) redirect("/account/profile");
  const t = await getTranslations("recovery");
  return (
    <section className="narrow card">
      <h1>{t("forgotTitle")}</h1>
      <p className="muted">{t("forgotLead", { minutes: 30 })}</p>
      <ForgotForm />
    </section>
  );
}
