import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { Swatch } from "../../../src/components/swatch";
import { VariantViewer } from "../../../src/components/variant-viewer";
import { idOf, screenDetail } from "../../../src/gallery/data";
import { filterHref, type SearchParams } from "../../../src/gallery/query";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

async function load(params: Props["params"]) {
  const id = idOf((await params).id);
  return id === null ? null : screenDetail(id);
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const screen = await load(params);
  return { title: screen ? `${screen.title ?? screen.page} · ${screen.app.slug}` : undefined };
}

/** One screen: its variants one key press apart, its tags as links into the grid, and where each image comes from. */
export default async function ScreenPage({ params, searchParams }: Props) {
  const screen = await load(params);
  if (!screen) notFound();
  const t = await getTranslations("gallery");
  const chosen = Number((await searchParams).variant) || (screen.variants[0]?.id ?? 0);
  const tagGroups = [
    { name: "patterns", terms: screen.patterns },
    { name: "components", terms: screen.components },
    { name: "elements", terms: screen.elements },
  ] as const;
  return (
    <div className="gallery-wide stack-large">
      <nav aria-label={t("breadcrumb")} className="breadcrumb">
        <a href="/screens">{t("gridTitle")}</a> <span aria-hidden="true">/</span>{" "}
        <a href={`/apps/${screen.app.id}`}>{screen.app.slug}</a>
      </nav>
      <header className="screen-head">
        <h1>{screen.title ?? screen.page}</h1>
        <p className="muted">
          <code>{screen.page}</code>
          {screen.page_type && (
            <>
              {" · "}
              <a href={filterHref("kind", screen.page_type.slug)}>{screen.page_type.label}</a>
            </>
          )}
          {" · "}
          {t("variantCount", { count: screen.variants.length })}
        </p>
        {!screen.current && (
          <p className="notice card" role="status">
            {t("notCurrent")}{" "}
            {screen.current_id !== null && <a href={`/screens/${screen.current_id}`}>{t("seeCurrent")}</a>}
          </p>
        )}
      </header>
      <VariantViewer variants={screen.variants} initial={chosen} />
      <section className="tags card" aria-labelledby="tags-title">
        <h2 id="tags-title">{t("tags")}</h2>
        {tagGroups
          .filter((group) => group.terms.length > 0)
          .map((group) => (
            <div key={group.name} className="tag-group">
              <h3>{t(`filters.${group.name}`)}</h3>
              <ul className="tag-list">
                {group.terms.map((term) => (
                  <li key={term.slug}>
                    <a href={filterHref(group.name, term.slug)}>{term.label}</a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        {screen.colors.length > 0 && (
          <div className="tag-group">
            <h3>{t("filters.colors")}</h3>
            <ul className="tag-list">
              {screen.colors.map((color) => (
                <li key={color.slug}>
                  <a href={filterHref("colors", color.slug)}>
                    <Swatch color={color.slug} /> <code>{color.label}</code>
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
        {screen.fonts.length > 0 && (
          <div className="tag-group">
            <h3>{t("filters.fonts")}</h3>
            <ul className="tag-list">
              {screen.fonts.map((font) => (
                <li key={font.slug}>
                  <a href={filterHref("fonts", font.slug)}>{font.label}</a>
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>
      {screen.history.length > 1 && (
        <section className="card" aria-labelledby="history-title">
          <h2 id="history-title">{t("history")}</h2>
          <ol className="history">
            {screen.history.map((entry) => (
              <li key={entry.id}>
                {entry.id === screen.id ? (
                  <span aria-current="page">{t("historyEntry", { run: entry.run_id, status: entry.status })}</span>
                ) : (
                  <a href={`/screens/${entry.id}`}>{t("historyEntry", { run: entry.run_id, status: entry.status })}</a>
                )}
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}
