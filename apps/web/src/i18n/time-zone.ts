/**
 * The cookie that tells the server the browser's time zone (`TimeZoneSync` writes it), so that pages rendered on the
 * server write times in the person's zone.
 */
export const TIME_ZONE_COOKIE = "shelf-tz";

/** The zone the pages write times in: the browser's (its cookie), else Korea's for a Korean page, else UTC. */
export function resolveTimeZone(cookie: string | undefined, locale: string): string {
  if (cookie && isTimeZone(cookie)) return cookie;
  return locale === "ko" ? "Asia/Seoul" : "UTC";
}

function isTimeZone(value: string): boolean {
  if (value.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
