import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("deletion"))("doneTitle") };
}

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
