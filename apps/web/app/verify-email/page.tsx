import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { NarrowCard } from "../../src/components/page-section";
import { VerifyForm } from "./verify-form";

export const generateMetadata = titleFrom("email", "followTitle");

/** Where the links of the verification and change-of-email mails lead: one press confirms the address. */
export default async function VerifyEmailPage() {
  const t = await getTranslations("email");
  return (
    <NarrowCard title={t("followTitle")} lead={t("followLead")}>
      <VerifyForm />
    </NarrowCard>
  );
}
