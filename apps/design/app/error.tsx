"use client";

import { FailurePage } from "@shelf/web-kit/failure";

/** A page that failed: a calm message and a retry; the details went to the server's log, never to this page. */
export default function ErrorPage({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <FailurePage reset={reset} />;
}
