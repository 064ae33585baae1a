import { LOCALE_COOKIE, resolveLocale } from "@shelf/api/host/pages";
import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";

/** next-intl without locale routing: the chosen language (cookie), else the browser's. */
export default getRequestConfig(async () => {
  const locale = resolveLocale((await cookies()).get(LOCALE_COOKIE)?.value, (await headers()).get("accept-language"));
  return {
    locale,
    messages: (await import(`../../messages/${locale}.json`)).default,
    timeZone: "UTC",
  };
});
