import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";

export const generateMetadata = titleFrom("deletion", "doneTitle");

/** Where deletion leads: every session of the account ended with it, so the person is signed out here. */
export default async function AccountDeletedPage() {
  const t = await getTranslations("deletion");
  return (
    <section className="narrow card stack">
      <h1>{t("doneTitle")}</h1>
      <p role="status">{t("done")}</p>
      <p>
        <a href="/">{t("home")}</a>
      </p>
    </section>
  );
}
