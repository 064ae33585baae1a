import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { type PageSearchParams, signedOutPage } from "../../src/auth/session";
import { NarrowCard } from "../../src/components/page-section";
import { getRuntime } from "../../src/runtime";
import { SignUpForm } from "./sign-up-form";

export const generateMetadata = titleFrom("signUp", "title");

type Props = { searchParams: PageSearchParams };

export default async function SignUpPage({ searchParams }: Props) {
  const { returnTo } = await signedOutPage(searchParams);
  const t = await getTranslations("signUp");
  return (
    <NarrowCard title={t("title")} lead={t("lead")}>
      <SignUpForm
        returnTo={returnTo}
        termsUrl={getRuntime().config.settings.SHELF_TERMS_URL}
        privacyUrl={getRuntime().config.settings.SHELF_PRIVACY_URL}
      />
      <p className="muted">
        {t("haveAccount")} <a href={`/sign-in?callbackUrl=${encodeURIComponent(returnTo)}`}>{t("signInLink")}</a>
      </p>
    </NarrowCard>
  );
}
