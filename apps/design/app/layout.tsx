import { PageDocument } from "@shelf/web-kit/document";
import { LanguageSwitch } from "@shelf/web-kit/language-switch";
import { siteMetadata, siteViewport } from "@shelf/web-kit/site-head";
import { NextIntlClientProvider } from "next-intl";
import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import "@shelf/web-kit/base.css";
import "./globals.css";

export const metadata = siteMetadata(
  "Shelf Design",
  "The design host: captures of the product's own pages, design documents, and the agents that keep them.",
);

export const viewport = siteViewport;

/** Every page reads the language per request (and gets the request's CSP nonce on its scripts). */
export const dynamic = "force-dynamic";

export default async function RootLayout({ children }: { children: ReactNode }) {
  const t = await getTranslations("layout");
  return (
    <PageDocument>
      <header className="site-header">
        <a href="/" className="brand">
          Shelf Design
        </a>
        <nav aria-label={t("mainNav")} className="main-nav">
          <a href="/">{t("overview")}</a>
          <a href="/screens">{t("gallery")}</a>
          <a href="/patterns">{t("patterns")}</a>
          <a href="/taxonomy">{t("taxonomy")}</a>
          <a href="/docs/api">{t("apiReference")}</a>
        </nav>
        <div className="header-tools">
          <LanguageSwitch />
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <NextIntlClientProvider>{children}</NextIntlClientProvider>
      </main>
      <footer className="site-footer">
        <a href="/docs/api">{t("apiReference")}</a>
        <a href="/api/openapi.json">{t("openapi")}</a>
      </footer>
    </PageDocument>
  );
}
