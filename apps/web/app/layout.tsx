import type { Metadata, Viewport } from "next";
import { NextIntlClientProvider } from "next-intl";
import { getLocale, getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import { currentSession } from "../src/auth/session";
import { AuthProvider } from "../src/components/auth-provider";
import { LanguageSwitch } from "../src/components/language-switch";
import { NavLink } from "../src/components/nav-link";
import { SignOutButton } from "../src/components/sign-out-button";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Shelf", template: "%s · Shelf" },
  description: "Sell and deliver software: licensing, distribution, MCP and Sparkle.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

/** Every page reads the session and the language per request. */
export const dynamic = "force-dynamic";

export default async function RootLayout({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  const t = await getTranslations("layout");
  const session = await currentSession();
  return (
    <html lang={locale}>
      <body>
        <a className="skip-link" href="#main">
          {t("skip")}
        </a>
        <NextIntlClientProvider>
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
            <main id="main" tabIndex={-1}>
              {children}
            </main>
            <footer className="site-footer">
              <a href="/docs/api">{t("apiReference")}</a>
              <a href="/api/openapi.json">OpenAPI</a>
            </footer>
          </AuthProvider>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
