"use client";

import { useTranslations } from "next-intl";

/** A page that failed: a calm message and a retry; the details went to the server's log, never to this page. */
export default function ErrorPage({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations("failure");
  return (
    <section className="narrow" role="alert">
      <h1>{t("title")}</h1>
      <p>{t("body")}</p>
      <button type="button" className="button" onClick={() => reset()}>
        {t("retry")}
      </button>
    </section>
  );
}
