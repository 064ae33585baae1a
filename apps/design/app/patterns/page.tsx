import { ListOrEmpty } from "@shelf/web-kit/list-or-empty";
import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { patterns } from "../../src/gallery/data";
import { filterHref } from "../../src/gallery/query";

export const generateMetadata = titleFrom("gallery", "patternsTitle");

/** Every pattern the gallery's screens show, with what it is and how many show it, each a link into the grid. */
export default async function PatternsPage() {
  const t = await getTranslations("gallery");
  const { items } = await patterns();
  return (
    <div className="stack-large">
      <header>
        <h1>{t("patternsTitle")}</h1>
        <p className="lead">{t("patternsLead")}</p>
      </header>
      <ListOrEmpty items={items} empty={t("emptyGallery")} emptyClassName="card" className="term-list">
        {(pattern) => (
          <li key={pattern.slug} className="card">
            <h2>
              <a href={filterHref("patterns", pattern.slug)}>{pattern.label}</a>{" "}
              <span className="count">{t("screenCount", { count: pattern.count })}</span>
            </h2>
            {pattern.definition && <p>{pattern.definition}</p>}
          </li>
        )}
      </ListOrEmpty>
    </div>
  );
}
