import { titleFrom } from "@shelf/web-kit/site-head";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { currentSession } from "../../src/auth/session";
import { NarrowCard } from "../../src/components/page-section";
import { ForgotForm } from "./forgot-form";

export const generateMetadata = titleFrom("recovery", "forgotTitle");

/** "Forgot password": a link to set a new one, mailed to the account's address. */
export default async function ForgotPasswordPage() {
  if (await currentSession()) redirect("/account/profile");
  const t = await getTranslations("recovery");
  return (
    <NarrowCard title={t("forgotTitle")} lead={t("forgotLead", { minutes: 30 })}>
      <ForgotForm />
    </NarrowCard>
  );
}
