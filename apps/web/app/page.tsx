import { ActionLinks } from "@shelf/web-kit/action-links";
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
      <ActionLinks main={{ href: "/sign-up", label: t("signUp") }} other={{ href: "/sign-in", label: t("signIn") }} />
      <p className="muted">
        {t("developers")} <a href="/docs/api">{t("apiReference")}</a>
      </p>
    </section>
  );
}
