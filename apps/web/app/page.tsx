import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { currentSession } from "../src/auth/session";

/** The front page: what Shelf is, and the way in. A signed-in person goes straight to their library. */
export default async function Home() {
  if (await currentSession()) redirect("/account");
  const t = await getTranslations("home");
  return (
    <section className="hero">
      <h1>{t("title")}</h1>
      <p className="lead">{t("lead")}</p>
      <p className="actions">
        <a href="/sign-up" className="button">
          {t("signUp")}
        </a>
        <a href="/sign-in" className="button secondary">
          {t("signIn")}
        </a>
      </p>
      <p className="muted">
        {t("developers")} <a href="/docs/api">{t("apiReference")}</a>
      </p>
    </section>
  );
}
