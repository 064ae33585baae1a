"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";

/**
 * The secret of a mailed link, from the address's fragment, which browsers never send: read once the page runs
 * (null before), and taken out of the address bar, and so out of the history.
 */
export function useLinkSecret(): string | null {
  const [secret, setSecret] = useState<string | null>(null);
  useEffect(() => {
    const fragment = window.location.hash.slice(1);
    setSecret(fragment);
    if (fragment) window.history.replaceState(null, "", window.location.pathname);
  }, []);
  return secret;
}

/**
 * What became of a mailed link: one paragraph (a status, or an alert when it `failed`) and where to go next. The
 * paragraph takes the focus when it answers what the person did (`focus`), so the keyboard and a screen reader land
 * on it.
 */
export function LinkOutcome({
  failed = false,
  focus,
  message,
  next,
}: {
  failed?: boolean;
  focus: boolean;
  message: ReactNode;
  next: ReactNode;
}) {
  const paragraph = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (focus) paragraph.current?.focus();
  }, [focus]);
  return (
    <div className="stack">
      <p className={failed ? "error" : "notice"} role={failed ? "alert" : "status"} tabIndex={-1} ref={paragraph}>
        {message}
      </p>
      <p>{next}</p>
    </div>
  );
}
