import { type Locale, locales } from "@shelf/api/host/pages";
import { getLocale, getTranslations } from "next-intl/server";
import { chooseLocale } from "./i18n/actions";

const names: Record<Locale, string> = { en: "English", ko: "한국어" };

/** The language switch: a form per language, so it works without JavaScript too. */
export async function LanguageSwitch() {
  const locale = await getLocale();
  const t = await getTranslations("layout");
  return (
    <form action={chooseLocale} className="language-switch" aria-label={t("language")}>
      {locales.map((option) => (
        <button
          key={option}
          type="submit"
          name="locale"
          value={option}
          lang={option}
          aria-pressed={option === locale}
          className={option === locale ? "current" : undefined}
        >
          {names[option]}
        </button>
      ))}
    </form>
  );
}
