import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { NarrowCard } from "../../src/components/page-section";
import { ResetForm } from "./reset-form";

export const generateMetadata = titleFrom("recovery", "resetTitle");

/** Where a "forgot password" mail's link leads: a new password, once; every session of the account then ends. */
export default async function ResetPasswordPage() {
  const t = await getTranslations("recovery");
  return (
    <NarrowCard title={t("resetTitle")} lead={t("resetLead")}>
      <ResetForm />
    </NarrowCard>
  );
}
