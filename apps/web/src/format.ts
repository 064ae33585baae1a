import { typeLabels } from "@shelf/api";
import { getLocale, getTimeZone, getTranslations } from "next-intl/server";

/**
 * Dates as the page's language writes them, in the person's time zone (see `i18n/time-zone.ts`); a time always names
 * its zone ("GMT+9", "한국 표준시"); "—" for none. The words for morning and afternoon come from the messages: Node
 * 20's ICU data writes "PM" in Korean, where Korean readers expect "오후".
 */
export async function dateFormatter() {
  const [locale, timeZone, t] = await Promise.all([getLocale(), getTimeZone(), getTranslations("format")]);
  const dateOnly = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone });
  const withTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone });
  // Korean names a zone in words (한국 표준시), English by its short name or offset (UTC, EST, GMT+9).
  const zoneName = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: locale === "ko" ? "long" : "short" });
  return (iso: string | null | undefined, time = false) => {
    if (!iso) return "—";
    const date = new Date(iso);
    if (!time) return dateOnly.format(date);
    const written = withTime
      .formatToParts(date)
      .map((part) => (part.type === "dayPeriod" ? t(hourIn(date, timeZone) < 12 ? "am" : "pm") : part.value))
      .join("");
    const zone = zoneName.formatToParts(date).find((part) => part.type === "timeZoneName")?.value ?? timeZone;
    return `${written} ${zone}`;
  };
}

function hourIn(date: Date, timeZone: string): number {
  return Number(new Intl.DateTimeFormat("en", { hour: "numeric", hourCycle: "h23", timeZone }).format(date));
}

/**
 * A product's type in the page's language. The API names it in English (`type_label`, from one table of labels):
 * a type the pages know is said in their own words, any other as the API says it.
 */
export async function typeLabeler() {
  const t = await getTranslations("productTypes");
  const kinds = new Map(Object.entries(typeLabels).map(([kind, label]) => [label, kind]));
  return (label: string) => {
    const kind = kinds.get(label);
    return kind && t.has(kind) ? t(kind) : label;
  };
}

/** Where the pages serve a product's content asset (a hero image, say) to the signed-in person. */
export function contentAssetHref(productId: number, path: string): string {
  return `/account/products/${productId}/content-assets/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** Money in minor units (`*_cents`) as the page's language writes the currency: cents, or won for KRW (none). */
export async function moneyFormatter() {
  const locale = await getLocale();
  return (cents: number, currency: string) => {
    const format = new Intl.NumberFormat(locale, { style: "currency", currency });
    return format.format(cents / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  };
}

/** Bytes as the page's language writes a file size (kB, MB). */
export async function sizeFormatter() {
  const locale = await getLocale();
  const units = ["byte", "kilobyte", "megabyte", "gigabyte"] as const;
  return (bytes: number) => {
    let value = bytes;
    let unit = 0;
    while (value >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit += 1;
    }
    return new Intl.NumberFormat(locale, {
      style: "unit",
      unit: units[unit],
      unitDisplay: "short",
      maximumFractionDigits: 1,
    }).format(value);
  };
}
