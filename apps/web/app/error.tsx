"use client";

import { useTranslations } from "next-intl";
import { DATABASE_UNAVAILABLE_DIGEST } from "../src/auth/database-unavailable";

/**
 * A page that failed: a calm message and a retry; the details went to the server's log, never to this page. A
 * failure because the database did not answer says so, in the words of the app's outage page (the answer is 503).
 */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const failure = useTranslations("failure");
  const unavailable = useTranslations("unavailable");
  const words = error.digest === DATABASE_UNAVAILABLE_DIGEST ? unavailable : failure;
  return (
    <section className="narrow" role="alert">
      <h1>{words("title")}</h1>
      <p>{words("body")}</p>
      <button type="button" className="button" onClick={() => reset()}>
        {failure("retry")}
      </button>
    </section>
  );
}
