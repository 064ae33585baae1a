import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { type PageSearchParams, signedOutPage } from "../../src/auth/session";
import { SignInForm } from "./sign-in-form";

export const generateMetadata = titleFrom("signIn", "title");

type Props = { searchParams: PageSearchParams };

export default async function SignInPage({ searchParams }: Props) {
  const { params, returnTo } = await signedOutPage(searchParams);
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
