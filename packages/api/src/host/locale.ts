import { type AnswerLanguage, answerLanguages, preferredLanguage } from "../language";

/** The pages of every app speak Korean and English, as the API's answers do. */
export const locales = answerLanguages;
export type Locale = AnswerLanguage;

/**
 * The cookie that keeps a language chosen on the pages; without it, the browser's Accept-Language decides. The apps
 * share it, so a language chosen on one host is kept on another of the same site.
 */
export const LOCALE_COOKIE = "shelf-locale";

export function isLocale(value: string | undefined): value is Locale {
  return (locales as readonly string[]).includes(value ?? "");
}

export function resolveLocale(cookie: string | undefined, acceptLanguage: string | null): Locale {
  return isLocale(cookie) ? cookie : preferredLanguage(acceptLanguage ?? undefined);
}
