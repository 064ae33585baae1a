import Negotiator from "negotiator";

/** The languages answers are written in (contract: Korean and English); English when the client prefers neither. */
export const answerLanguages = ["en", "ko"] as const;
export type AnswerLanguage = (typeof answerLanguages)[number];

/** The language an `Accept-Language` header prefers among ours (RFC 9110 12.5.4, quality values honoured). */
export function preferredLanguage(acceptLanguage: string | undefined): AnswerLanguage {
  if (!acceptLanguage) return "en";
  const chosen = new Negotiator({ headers: { "accept-language": acceptLanguage } }).language([...answerLanguages]);
  return (chosen as AnswerLanguage | undefined) ?? "en";
}

/** A date as people of that language write it, in UTC (`November 23, 2026`, `2026년 11월 23일`). */
export function longDate(iso: string, language: AnswerLanguage): string {
  return new Intl.DateTimeFormat(language === "ko" ? "ko-KR" : "en-US", { dateStyle: "long", timeZone: "UTC" }).format(
    new Date(iso),
  );
}

/** An amount in minor units as its language writes the currency (cents, or won for KRW, which has none). */
export function moneyIn(language: AnswerLanguage, cents: number, currency: string): string {
  const format = new Intl.NumberFormat(language === "ko" ? "ko-KR" : "en-US", { style: "currency", currency });
  return format.format(cents / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/**
 * The language of an answer that has words for people in it: chosen from the request's Accept-Language, and said in
 * Content-Language, with Vary so that shared caches keep one copy per language.
 */
export function answerLanguageOf(ctx: {
  acceptLanguage?: string;
  res: { headers: Record<string, string> };
}): AnswerLanguage {
  const language = preferredLanguage(ctx.acceptLanguage);
  ctx.res.headers["content-language"] = language;
  ctx.res.headers.vary = "Accept-Language";
  return language;
}
