import { getTranslations } from "next-intl/server";

export default async function NotFound() {
  const t = await getTranslations("notFound");
  return (
    <section className="narrow">
      <h1>{t("title")}</h1>
      <p>{t("body")}</p>
      <p>
        <a href="/">{t("home")}</a>
      </p>
    </section>
  );
}
