import { getTranslations } from "next-intl/server";
import { Swatch } from "../../src/components/swatch";
import type { screensPage } from "../../src/gallery/data";
import { FILTERS, type FilterName, gridHref, LIST_FILTERS } from "../../src/gallery/query";

type Page = Extract<Awaited<ReturnType<typeof screensPage>>, { ok: true }>["page"];
type Active = { name: string; value: string }[];

/** Values shown per facet before "more". */
const SHOWN = 8;
const SORTS = ["newest", "oldest", "name"] as const;
/** Filters whose values are words of the gallery's own (translated), not names from the captures. */
const TRANSLATED = new Set<string>(["viewport", "lang", "mode", "platform"]);

/** A filter's value in the page's words: the gallery's own translated, a capture's name as it is. */
async function valueLabeler() {
  const t = await getTranslations("gallery");
  return (name: string, value: string, label: string) =>
    TRANSLATED.has(name) ? t(`values.${name}.${value}` as never) : label;
}

/** A query the API refuses (the page answers 422): what is wrong with each filter, and a way out of each. */
export async function InvalidQuery({ query, errors }: { query: URLSearchParams; errors: Record<string, string[]> }) {
  const t = await getTranslations("gallery");
  return (
    <div className="gallery-wide stack-large">
      <h1>{t("gridTitle")}</h1>
      <section className="card notice" role="alert">
        <h2>{t("invalidTitle")}</h2>
        <ul>
          {Object.entries(errors).map(([field, messages]) => (
            <li key={field}>
              <code>{field}</code>: {messages.join(", ")}
            </li>
          ))}
        </ul>
        <p className="actions">
          {Object.keys(errors).map((field) => (
            <a key={field} className="button secondary" href={gridHref(query, { remove: field })}>
              {t("removeFilter", { filter: field })}
            </a>
          ))}
          <a className="button" href="/screens">
            {t("clearAll")}
          </a>
        </p>
      </section>
    </div>
  );
}

/** The search words and the order, sent with the filters chosen (kept as hidden fields). */
export async function GallerySearch({ query, sort }: { query: URLSearchParams; sort: Page["sort"] }) {
  const t = await getTranslations("gallery");
  return (
    <search>
      <form method="get" action="/screens" className="gallery-search">
        {[...query.entries()]
          .filter(([name]) => name !== "q" && name !== "sort" && name !== "page")
          .map(([name, value]) => (
            <input key={`${name}=${value}`} type="hidden" name={name} value={value} />
          ))}
        <label className="search-field">
          <span>{t("search")}</span>
          <input type="search" name="q" defaultValue={query.get("q") ?? ""} placeholder={t("searchPlaceholder")} />
        </label>
        <label className="sort-field">
          <span>{t("sort")}</span>
          <select name="sort" defaultValue={sort}>
            {SORTS.map((sort) => (
              <option key={sort} value={sort}>
                {t(`sorts.${sort}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="button">
          {t("apply")}
        </button>
      </form>
    </search>
  );
}

/** The filters chosen, each a link that lets it go, and one that lets them all go but the search words. */
export async function ActiveFilters({ query, active }: { query: URLSearchParams; active: Active }) {
  const [t, valueLabel] = await Promise.all([getTranslations("gallery"), valueLabeler()]);
  return (
    <ul className="active-filters" aria-label={t("activeFilters")}>
      {active.map(({ name, value }) => (
        <li key={`${name}=${value}`}>
          <a
            href={gridHref(query, LIST_FILTERS.has(name) ? { toggle: [name, value] } : { remove: name })}
            aria-label={t("removeValue", { filter: t(`filters.${name}`), value })}
          >
            {t(`filters.${name}`)}: {TRANSLATED.has(name) ? valueLabel(name, value, value) : value}{" "}
            <span aria-hidden="true">×</span>
          </a>
        </li>
      ))}
      <li>
        <a href={query.get("q") ? `/screens?${new URLSearchParams({ q: query.get("q") as string })}` : "/screens"}>
          {t("clearFilters")}
        </a>
      </li>
    </ul>
  );
}

/**
 * Every filter as a facet with its values' live counts, each value a link that takes or drops it. At phone width a
 * panel above the grid, closed until asked for; wider, always open beside it.
 */
export async function Facets({
  query,
  facets,
  active,
}: {
  query: URLSearchParams;
  facets: Page["facets"];
  active: Active;
}) {
  const [t, valueLabel] = await Promise.all([getTranslations("gallery"), valueLabeler()]);
  return (
    <details className="facets-panel">
      <summary>{t("facetsToggle", { count: active.length })}</summary>
      <nav className="facets" aria-label={t("facets")}>
        {facets &&
          FILTERS.filter((name) => facets[name].length > 0 || query.has(name)).map((name: FilterName) => {
            const values = facets[name];
            const chosen = new Set(query.getAll(name));
            // A list filter adds or drops the value; a one-value filter takes it, or lets it go when it is chosen.
            const link = (value: string) =>
              LIST_FILTERS.has(name)
                ? gridHref(query, { toggle: [name, value] })
                : chosen.has(value)
                  ? gridHref(query, { remove: name })
                  : gridHref(query, { set: [name, value] });
            const item = (facet: { value: string; label: string; count: number }) => (
              <li key={facet.value}>
                <a href={link(facet.value)} aria-current={chosen.has(facet.value) ? "true" : undefined}>
                  {name === "colors" && <Swatch color={facet.value} />}
                  <span className="facet-label">{valueLabel(name, facet.value, facet.label)}</span>
                  <span className="count">{facet.count}</span>
                </a>
              </li>
            );
            return (
              <section key={name} className="facet" aria-labelledby={`facet-${name}`}>
                <h2 id={`facet-${name}`}>{t(`filters.${name}`)}</h2>
                <ul>{values.slice(0, SHOWN).map(item)}</ul>
                {values.length > SHOWN && (
                  <details>
                    <summary>{t("moreValues", { count: values.length - SHOWN })}</summary>
                    <ul>{values.slice(SHOWN).map(item)}</ul>
                  </details>
                )}
              </section>
            );
          })}
      </nav>
    </details>
  );
}
