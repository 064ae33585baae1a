import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { requireSession } from "../../../src/auth/session";
import { NameForm } from "./name-form";
import { PasswordForm } from "./password-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("security"))("title") };
}

export default async function SecurityPage() {
  const session = await requireSession("/settings/security");
  const t = await getTranslations("security");
  const profile = await getTranslations("profile");
  return (
    <section className="stack-large">
      <header>
        <h1>{t("title")}</h1>
        <p className="muted">{t("lead", { email: session.email })}</p>
      </header>
      <section className="card narrow-card">
        <h2>{profile("title")}</h2>
        <NameForm name={session.name} />
      </section>
      <section className="card narrow-card">
        <h2>{t("passwordTitle")}</h2>
        <PasswordForm />
      </section>
    </section>
  );
}
