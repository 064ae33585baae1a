"use client";

import { useEffect } from "react";
import { TIME_ZONE_COOKIE } from "../i18n/time-zone";

/**
 * Tells the server the browser's time zone, in a cookie its next pages read, when the page was written in another
 * one. The page on screen is left as it is (every time on it names its zone), so nothing moves under the person's
 * hands; the server ignores a zone it does not know.
 */
export function TimeZoneSync({ zone }: { zone: string }) {
  useEffect(() => {
    const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!browser || browser === zone) return;
    // biome-ignore lint/suspicious/noDocumentCookie: one plain value; the Cookie Store API is missing in older Safari and Firefox
    document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(browser)}; path=/; max-age=31536000; samesite=lax`;
  }, [zone]);
  return null;
}
