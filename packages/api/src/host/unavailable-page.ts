import { readFileSync } from "node:fs";
import path from "node:path";
import { type UnavailablePage, unavailablePage } from "@shelf/server/host/unavailable-page";
import { LOCALE_COOKIE, type Locale, locales, resolveLocale } from "./locale";

const localeCookie = new RegExp(`(?:^|;\\s*)${LOCALE_COOKIE}=([^;]*)`);

/**
 * An app's outage page, in the words of its own messages (`<messagesDir>/<locale>.json`, key `unavailable`) and in
 * the language its pages speak to the reader: the one chosen on them (the locale cookie), else the browser's.
 */
export function createUnavailablePage(messagesDir: string): UnavailablePage {
  const words = Object.fromEntries(
    locales.map((locale) => [
      locale,
      JSON.parse(readFileSync(path.join(messagesDir, `${locale}.json`), "utf8")).unavailable,
    ]),
  ) as Record<Locale, { title: string; body: string }>;
  return unavailablePage((req) => {
    const locale = resolveLocale(
      localeCookie.exec(req.headers.cookie ?? "")?.[1],
      req.headers["accept-language"] ?? null,
    );
    return { language: locale, ...words[locale] };
  });
}
