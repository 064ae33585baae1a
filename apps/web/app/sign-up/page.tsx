import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { safeReturnPath } from "../../src/auth/return-path";
import { currentSession } from "../../src/auth/session";
import { getRuntime } from "../../src/runtime";
import { SignUpForm } from "./sign-up-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("signUp"))("title") };
}

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function SignUpPage({ searchParams }: Props) {
  const params = await searchParams;
  const returnTo = safeReturnPath(typeof params.callbackUrl === "string" ? params.callbackUrl : null) ?? "/account";
  if (await currentSession()) redirect(returnTo);
  const t = await getTranslations("signUp");
  return (
    <section className="narrow card">
      <h1>{t("title")}</h1>
      <p className="muted">{t("lead")}</p>
      <SignUpForm
        returnTo={returnTo}
        termsUrl={getRuntime().config.settings.SHELF_TERMS_URL}
        privacyUrl={getRuntime().config.settings.SHELF_PRIVACY_URL}
      />
      <p className="muted">
        {t("haveAccount")} <a href={`/sign-in?callbackUrl=${encodeURIComponent(returnTo)}`}>{t("signInLink")}</a>
      </p>
    </section>
  );
}
