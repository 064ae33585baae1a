import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { safeReturnPath } from "../../src/auth/return-path";
import { currentSession } from "../../src/auth/session";
import { SignInForm } from "./sign-in-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("signIn"))("title") };
}

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function SignInPage({ searchParams }: Props) {
  const params = await searchParams;
  const returnTo = safeReturnPath(typeof params.callbackUrl === "string" ? params.callbackUrl : null) ?? "/account";
  if (await currentSession()) redirect(returnTo);
  const t = await getTranslations("signIn");
  const recovery = await getTranslations("recovery");
  return (
    <section className="narrow card">
      <h1>{t("title")}</h1>
      {(params.signedOut === "1" || params.signedOut === "all") && (
        <p className="notice" role="status">
          {t(params.signedOut === "all" ? "signedOutEverywhere" : "signedOut")}
        </p>
      )}
      <SignInForm returnTo={returnTo} />
      <p>
        <a href="/forgot-password">{recovery("forgotLink")}</a>
      </p>
      <p className="muted">
        {t("noAccount")} <a href={`/sign-up?callbackUrl=${encodeURIComponent(returnTo)}`}>{t("signUpLink")}</a>
      </p>
    </section>
  );
}
