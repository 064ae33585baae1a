import { setPageStatus } from "@shelf/api/host/pages";
import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { GridKeys } from "../../src/components/grid-keys";
import { ScreenCard } from "../../src/components/screen-card";
import { Swatch } from "../../src/components/swatch";
import { screensPage } from "../../src/gallery/data";
import {
  FILTERS,
  type FilterName,
  gridHref,
  LIST_FILTERS,
  readScreensQuery,
  type SearchParams,
  toParams,
} from "../../src/gallery/query";

type Props = { searchParams: Promise<SearchParams> };

/** Values shown per facet before "more". */
const SHOWN = 8;
const SORTS = ["newest", "oldest", "name"] as const;
/** Filters whose values are words of the gallery's own (translated), not names from the captures. */
const TRANSLATED = new Set<string>(["viewport", "lang", "mode", "platform"]);

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  const t = await getTranslations("gallery");
  const q = toParams(await searchParams).get("q");
  return { title: q ? t("searchTitle", { q }) : t("gridTitle") };
}

/**
 * The gallery's grid: every filter of `GET /api/v1/screens` as a facet with live counts, the whole state in the
 * address (a link reproduces the view), paged by links (the browser keeps the scroll position on going back).
 */
export default async function ScreensPage({ searchParams }: Props) {
  const t = await getTranslations("gallery");
  const query = toParams(await searchParams);
  const read = readScreensQuery(query);
  const answer = read.ok ? await screensPage(read.input) : { ok: false as const, errors: read.errors };
  if (!answer.ok) {
    setPageStatus(422);
    return (
      <div className="gallery-wide stack-large">
        <h1>{t("gridTitle")}</h1>
        <section className="card notice" role="alert">
          <h2>{t("invalidTitle")}</h2>
          <ul>
            {Object.entries(answer.errors).map(([field, messages]) => (
              <li key={field}>
                <code>{field}</code>: {messages.join(", ")}
              </li>
            ))}
          </ul>
          <p className="actions">
            {Object.keys(answer.errors).map((field) => (
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
  const { page } = answer;
  const facets = page.facets;
  const active = FILTERS.flatMap((name) => query.getAll(name).map((value) => ({ name, value })));
  const valueLabel = (name: string, value: string, label: string) =>
    TRANSLATED.has(name) ? t(`values.${name}.${value}` as never) : label;
  return (
    <div className="gallery-wide gallery">
      <div className="gallery-head">
        <h1>{t("gridTitle")}</h1>
        <p className="muted" aria-live="polite">
          {t("total", { count: page.total })}
        </p>
      </div>
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
            <select name="sort" defaultValue={page.sort}>
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
      {active.length > 0 && (
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
      )}
      <div className="gallery-body">
        {/* At phone width a panel above the grid, closed until asked for; wider, always open beside it. */}
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
        <section className="results" aria-label={t("results")}>
          {page.items.length === 0 ? (
            <div className="card empty">
              <p>{t("empty")}</p>
              {active.length > 0 && (
                <a className="button secondary" href="/screens">
                  {t("clearAll")}
                </a>
              )}
            </div>
          ) : (
            <ul className="screen-grid" id="screen-grid">
              {page.items.map((card, index) => (
                <ScreenCard key={card.id} card={card} eager={index < 4} />
              ))}
            </ul>
          )}
          <GridKeys id="screen-grid" />
          {page.pages > 1 && (
            <nav className="pager" aria-label={t("pages")}>
              {page.page > 1 && (
                <a href={gridHref(query, { page: page.page - 1 })} rel="prev">
                  {t("previous")}
                </a>
              )}
              <span aria-current="page">{t("pageOf", { page: page.page, pages: page.pages })}</span>
              {page.page < page.pages && (
                <a href={gridHref(query, { page: page.page + 1 })} rel="next">
                  {t("next")}
                </a>
              )}
            </nav>
          )}
        </section>
      </div>
    </div>
  );
}
