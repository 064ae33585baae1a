import { setPageStatus } from "@shelf/api/host/pages";
import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { GridKeys } from "../../src/components/grid-keys";
import { ScreenCard } from "../../src/components/screen-card";
import { screensPage } from "../../src/gallery/data";
import { FILTERS, gridHref, readScreensQuery, type SearchParams, toParams } from "../../src/gallery/query";
import { ActiveFilters, Facets, GallerySearch, InvalidQuery } from "./grid-parts";

type Props = { searchParams: Promise<SearchParams> };

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
    return <InvalidQuery query={query} errors={answer.errors} />;
  }
  const { page } = answer;
  const facets = page.facets;
  const active = FILTERS.flatMap((name) => query.getAll(name).map((value) => ({ name, value })));
  return (
    <div className="gallery-wide gallery">
      <div className="gallery-head">
        <h1>{t("gridTitle")}</h1>
        <p className="muted" aria-live="polite">
          {t("total", { count: page.total })}
        </p>
      </div>
      <GallerySearch query={query} sort={page.sort} />
      {active.length > 0 && <ActiveFilters query={query} active={active} />}
      <div className="gallery-body">
        <Facets query={query} facets={facets} active={active} />
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
