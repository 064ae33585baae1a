import { LOCALE_COOKIE, resolveLocale } from "@shelf/api/host/pages";
import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { resolveTimeZone, TIME_ZONE_COOKIE } from "./time-zone";

/**
 * next-intl without locale routing: the chosen language (cookie), else the browser's; times in the browser's zone
 * (cookie), else Korea's for Korean pages, else UTC.
 */
export default getRequestConfig(async () => {
  const jar = await cookies();
  const locale = resolveLocale(jar.get(LOCALE_COOKIE)?.value, (await headers()).get("accept-language"));
  return {
    locale,
    messages: (await import(`../../messages/${locale}.json`)).default,
    timeZone: resolveTimeZone(jar.get(TIME_ZONE_COOKIE)?.value, locale),
  };
});
