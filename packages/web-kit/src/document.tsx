import { getLocale, getTranslations } from "next-intl/server";
import type { ReactNode } from "react";

/** Both apps' page document: the request's language, and the link that skips to the page's own content first. */
export async function PageDocument({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  const t = await getTranslations("layout");
  return (
    <html lang={locale}>
      <body>
        <a className="skip-link" href="#main">
          {t("skip")}
        </a>
        {children}
      </body>
    </html>
  );
}
