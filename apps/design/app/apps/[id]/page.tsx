import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { GridKeys } from "../../../src/components/grid-keys";
import { LinkKeys } from "../../../src/components/link-keys";
import { ScreenCard } from "../../../src/components/screen-card";
import { Swatch } from "../../../src/components/swatch";
import { appDetail, idOf } from "../../../src/gallery/data";
import { filterHref, type SearchParams } from "../../../src/gallery/query";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

async function load(params: Props["params"]) {
  const id = idOf((await params).id);
  return id === null ? null : appDetail(id);
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const app = await load(params);
  return { title: app ? app.slug : undefined };
}

/**
 * An app: its flows walked step by step (the flow and the step are in the address; the arrow keys and the links
 * go back and forth), and every screen it has now.
 */
export default async function AppPage({ params, searchParams }: Props) {
  const app = await load(params);
  if (!app) notFound();
  const t = await getTranslations("gallery");
  const query = await searchParams;
  const flows = app.flows.filter((flow) => flow.steps.length > 0);
  const flow = flows.find((candidate) => String(candidate.id) === query.flow) ?? flows[0];
  const stepCount = flow?.steps.length ?? 0;
  const requested = Number(query.step);
  const step = Number.isInteger(requested) && requested >= 1 && requested <= stepCount ? requested : 1;
  const current = flow?.steps[step - 1];
  const stepHref = (n: number) => `/apps/${app.id}?flow=${flow?.id}&step=${n}#flow`;
  const flowName = (candidate: (typeof flows)[number]) => {
    if (candidate.name) return candidate.name;
    if (candidate.kind !== "walk") return candidate.slug;
    return [
      t(candidate.signed_in ? "walkSignedIn" : "walkSignedOut"),
      candidate.viewport && t(`values.viewport.${candidate.viewport}`),
      candidate.lang && t(`values.lang.${candidate.lang}`),
    ]
      .filter(Boolean)
      .join(" · ");
  };
  return (
    <div className="gallery-wide stack-large">
      <nav aria-label={t("breadcrumb")} className="breadcrumb">
        <a href="/screens">{t("gridTitle")}</a> <span aria-hidden="true">/</span> <span>{app.slug}</span>
      </nav>
      <header>
        <h1>{app.slug}</h1>
        <p className="muted">
          <code>{app.origin}</code> · {t("screenCount", { count: app.screen_count })} ·{" "}
          <a href={filterHref("app", app.slug)}>{t("appInGrid")}</a>
        </p>
      </header>
      {flow && current ? (
        <section id="flow" className="flow card" aria-labelledby="flow-title">
          <div className="flow-head">
            <h2 id="flow-title">{t("flows")}</h2>
            <ul className="flow-list">
              {flows.map((candidate) => (
                <li key={candidate.id}>
                  <a
                    href={`/apps/${app.id}?flow=${candidate.id}&step=1#flow`}
                    aria-current={candidate.id === flow.id ? "true" : undefined}
                  >
                    {flowName(candidate)} <span className="count">{candidate.steps.length}</span>
                  </a>
                </li>
              ))}
            </ul>
          </div>
          <p className="flow-position" aria-live="polite">
            <strong>{flowName(flow)}</strong> · {t("stepOf", { step, steps: stepCount })}
          </p>
          <nav className="flow-nav" aria-label={t("flowSteps")}>
            {step > 1 ? (
              <a href={stepHref(step - 1)} data-key="ArrowLeft" rel="prev" className="button secondary">
                ← {t("previousStep")}
              </a>
            ) : (
              <span />
            )}
            {step < stepCount && (
              <a href={stepHref(step + 1)} data-key="ArrowRight" rel="next" className="button">
                {t("nextStep")} →
              </a>
            )}
          </nav>
          <figure className="flow-step">
            <a href={`/screens/${current.screen.id}`}>
              {/* biome-ignore lint/performance/noImgElement: the gallery's own immutable image route */}
              <img
                src={current.screen.thumbnail.image.url}
                width={current.screen.thumbnail.image.width}
                height={current.screen.thumbnail.image.height}
                alt={t("stepAlt", { step, title: current.screen.title ?? current.screen.page })}
              />
            </a>
            <figcaption>
              {current.screen.title ?? current.screen.page} <code className="muted">{current.screen.page}</code>
            </figcaption>
          </figure>
          <ol className="flow-strip">
            {flow.steps.map((entry, index) => (
              <li key={entry.position}>
                <a href={stepHref(index + 1)} aria-current={index + 1 === step ? "step" : undefined}>
                  {index + 1}. {entry.screen.title ?? entry.screen.page}
                </a>
              </li>
            ))}
          </ol>
          <LinkKeys />
        </section>
      ) : (
        <p className="card">{t("noFlows")}</p>
      )}
      {(app.colors.length > 0 || app.fonts.length > 0) && (
        <section className="card tags" aria-labelledby="style-title">
          <h2 id="style-title">{t("style")}</h2>
          <ul className="tag-list">
            {app.colors.slice(0, 16).map((color) => (
              <li key={color.slug}>
                <a href={filterHref("colors", color.slug)}>
                  <Swatch color={color.slug} /> <code>{color.label}</code>
                </a>
              </li>
            ))}
            {app.fonts.map((font) => (
              <li key={font.slug}>
                <a href={filterHref("fonts", font.slug)}>{font.label}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="screens-title">
        <h2 id="screens-title">{t("screens")}</h2>
        <ul className="screen-grid" id="app-grid">
          {app.screens.map((card) => (
            <ScreenCard key={card.id} card={card} />
          ))}
        </ul>
        <GridKeys id="app-grid" />
      </section>
    </div>
  );
}
