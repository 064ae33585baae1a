import { ListOrEmpty } from "@shelf/web-kit/list-or-empty";
import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { Swatch } from "../../src/components/swatch";
import { taxonomy } from "../../src/gallery/data";
import { filterHref, KIND_FILTER } from "../../src/gallery/query";

export const generateMetadata = titleFrom("gallery", "taxonomyTitle");

const KINDS = [
  ["page_type", "page_types"],
  ["pattern", "patterns"],
  ["element", "elements"],
  ["component", "components"],
  ["font", "fonts"],
  ["color", "colors"],
] as const;

/** The gallery's vocabulary: page types, patterns, elements, components, fonts and colors, with counts and links. */
export default async function TaxonomyPage() {
  const t = await getTranslations("gallery");
  const lists: Record<string, { slug: string; label: string; count: number }[] | undefined> = await taxonomy();
  return (
    <div className="stack-large">
      <header>
        <h1>{t("taxonomyTitle")}</h1>
        <p className="lead">{t("taxonomyLead")}</p>
      </header>
      <nav aria-label={t("taxonomyKinds")} className="kind-nav">
        {KINDS.map(([kind]) => (
          <a key={kind} href={`#${kind}`}>
            {t(`kinds.${kind}`)}
          </a>
        ))}
      </nav>
      {KINDS.map(([kind, list]) => {
        const terms = lists[list] ?? [];
        return (
          <section key={kind} id={kind} className="card" aria-labelledby={`${kind}-title`}>
            <h2 id={`${kind}-title`}>
              {t(`kinds.${kind}`)} <span className="count">{terms.length}</span>
            </h2>
            <ListOrEmpty items={terms} empty={t("noTerms")} emptyClassName="muted" className="tag-list">
              {(term) => (
                <li key={term.slug}>
                  <a href={filterHref(KIND_FILTER[kind] as string, term.slug)}>
                    {kind === "color" && <Swatch color={term.slug} />} {term.label}{" "}
                    <span className="count">{term.count}</span>
                  </a>
                </li>
              )}
            </ListOrEmpty>
          </section>
        );
      })}
    </div>
  );
}
