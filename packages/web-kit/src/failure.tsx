"use client";

import { useTranslations } from "next-intl";

/**
 * A page that failed (each app's `error.tsx`): a calm message and a retry; the details went to the server's log, never
 * to this page. A failure because the database did not answer says so, in the words of the app's outage page.
 */
export function FailurePage({ unavailable = false, reset }: { unavailable?: boolean; reset: () => void }) {
  const failure = useTranslations("failure");
  const outage = useTranslations("unavailable");
  const words = unavailable ? outage : failure;
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
