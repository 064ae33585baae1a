"use client";

import { FailurePage } from "@shelf/web-kit/failure";
import { DATABASE_UNAVAILABLE_DIGEST } from "../src/auth/database-unavailable";

/**
 * A page that failed: a calm message and a retry; the details went to the server's log, never to this page. A
 * failure because the database did not answer says so, in the words of the app's outage page (the answer is 503).
 */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <FailurePage unavailable={error.digest === DATABASE_UNAVAILABLE_DIGEST} reset={reset} />;
}
