import { CardSection } from "@shelf/web-kit/card-section";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import { Swatch } from "../../../src/components/swatch";
import { VariantViewer } from "../../../src/components/variant-viewer";
import { idOf, screenDetail } from "../../../src/gallery/data";
import { filterHref, type SearchParams } from "../../../src/gallery/query";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

async function load(params: Props["params"]) {
  const id = idOf((await params).id);
  return id === null ? null : screenDetail(id);
}

type Term = { slug: string; label: string };

/** One kind of the screen's tags, each a link to the gallery filtered by it (its label, unless `children` draws it). */
function TagGroup({
  title,
  filter,
  terms,
  children = (term) => term.label,
}: {
  title: string;
  filter: string;
  terms: Term[];
  children?: (term: Term) => ReactNode;
}) {
  return (
    <div className="tag-group">
      <h3>{title}</h3>
      <ul className="tag-list">
        {terms.map((term) => (
          <li key={term.slug}>
            <a href={filterHref(filter, term.slug)}>{children(term)}</a>
          </li>
        ))}
      </ul>
    </div>
  );
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
            <TagGroup key={group.name} title={t(`filters.${group.name}`)} filter={group.name} terms={group.terms} />
          ))}
        {screen.colors.length > 0 && (
          <TagGroup title={t("filters.colors")} filter="colors" terms={screen.colors}>
            {(color) => (
              <>
                <Swatch color={color.slug} /> <code>{color.label}</code>
              </>
            )}
          </TagGroup>
        )}
        {screen.fonts.length > 0 && <TagGroup title={t("filters.fonts")} filter="fonts" terms={screen.fonts} />}
      </section>
      {screen.history.length > 1 && (
        <CardSection id="history-title" title={t("history")}>
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
        </CardSection>
      )}
    </div>
  );
}
