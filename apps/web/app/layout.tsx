import { PageDocument } from "@shelf/web-kit/document";
import { LanguageSwitch } from "@shelf/web-kit/language-switch";
import { siteMetadata, siteViewport } from "@shelf/web-kit/site-head";
import { NextIntlClientProvider } from "next-intl";
import { getLocale, getTimeZone, getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import { currentSession, noAccountOnOutage } from "../src/auth/session";
import { ACCOUNT_AREA } from "../src/components/account-area";
import { AuthProvider } from "../src/components/auth-provider";
import { NavLink } from "../src/components/nav-link";
import { ResendVerification } from "../src/components/resend-verification";
import { SignOutButton } from "../src/components/sign-out-button";
import { TimeZoneSync } from "../src/components/time-zone-sync";
import { getRuntime } from "../src/runtime";
import "@shelf/web-kit/base.css";
import "./globals.css";

export const metadata = siteMetadata("Shelf", "Sell and deliver software: licensing, distribution, MCP and Sparkle.");

export const viewport = siteViewport;

/** Every page reads the session and the language per request. */
export const dynamic = "force-dynamic";

export default async function RootLayout({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  const t = await getTranslations("layout");
  const session = await currentSession().catch(noAccountOnOutage);
  const footer = await getTranslations("footer");
  const area = await getTranslations("accountArea");
  const email = await getTranslations("email");
  const { config, disclosure } = getRuntime();
  const web = config.settings;
  // The business disclosure (what GET /api/public/disclosure publishes) in the page's language.
  const business = disclosure ? disclosure[locale === "ko" ? "ko" : "en"] : undefined;
  return (
    <PageDocument>
      <NextIntlClientProvider>
        <TimeZoneSync zone={await getTimeZone()} />
        <AuthProvider>
          <header className="site-header">
            <a href={session ? "/account" : "/"} className="brand">
              Shelf
            </a>
            {session && (
              <nav aria-label={t("mainNav")} className="main-nav">
                <NavLink href="/account" exact>
                  {t("library")}
                </NavLink>
                <NavLink href="/account/devices">{t("devices")}</NavLink>
                <NavLink href="/account/billing">{t("billing")}</NavLink>
                <NavLink href="/catalog">{t("catalog")}</NavLink>
                <NavLink href="/account/profile" also={ACCOUNT_AREA.map((page) => page.href)}>
                  {area("headerLink")}
                </NavLink>
                <NavLink href="/settings">{t("settings")}</NavLink>
              </nav>
            )}
            <div className="header-tools">
              <LanguageSwitch />
              {session ? (
                <div className="account-menu">
                  <span className="account-email" title={session.email}>
                    {session.email}
                  </span>
                  <SignOutButton label={t("signOut")} pendingLabel={t("signingOut")} />
                </div>
              ) : (
                <a href="/sign-in" className="button secondary small">
                  {t("signIn")}
                </a>
              )}
            </div>
          </header>
          {session && !session.emailVerified && (
            <aside aria-label={email("bannerLabel")} className="verify-banner">
              <p className="verify-banner-text">{email("banner", { email: session.email })}</p>
              <ResendVerification />
            </aside>
          )}
          <main id="main" tabIndex={-1}>
            {children}
          </main>
          <footer className="site-footer">
            <nav aria-label={footer("links")} className="footer-links">
              <a href="/docs/api">{t("apiReference")}</a>
              <a href="/api/openapi.json">OpenAPI</a>
              {web.SHELF_TERMS_URL && <a href={web.SHELF_TERMS_URL}>{footer("terms")}</a>}
              {web.SHELF_PRIVACY_URL && <a href={web.SHELF_PRIVACY_URL}>{footer("privacy")}</a>}
            </nav>
            {business && (
              <section aria-label={footer("disclosure")} className="disclosure">
                <p>
                  <strong>{business.company_name}</strong> · {footer("representative")} {business.representative_name}
                </p>
                <p>
                  {footer("businessNumber")} {business.business_registration_number} · {footer("mailOrderNumber")}{" "}
                  {business.mail_order_registration_number} · <a href={business.ftc_biz_info_url}>{footer("ftc")}</a>
                </p>
                <p>
                  {business.address} · {footer("phone")} {business.phone} · {footer("email")}{" "}
                  <a href={`mailto:${business.email}`}>{business.email}</a> ·{" "}
                  <a href={business.website}>{business.website}</a>
                </p>
              </section>
            )}
          </footer>
        </AuthProvider>
      </NextIntlClientProvider>
    </PageDocument>
  );
}
