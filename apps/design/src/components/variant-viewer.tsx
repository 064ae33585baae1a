"use client";

import type { ScreenVariant } from "@shelf/api/routers/design-gallery/schemas";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import type { z } from "zod";
import { markKeysReady } from "./keys-ready";

/** A variant as the viewer shows it: the screen's answer's variant (contract: `GalleryScreenVariant`). */
export type ViewerVariant = Omit<z.output<typeof ScreenVariant>, "url">;

/**
 * A screen's variants side by side as tabs (viewport, language, signed-in state, color scheme), the chosen one at full
 * size with its evidence. One key press apart: arrow keys on the tabs, or 1 to 9 anywhere on the page; the chosen
 * variant is in the address (`?variant=`), so a link shows it. Escape goes back to where the person came from.
 */
export function VariantViewer({ variants, initial }: { variants: ViewerVariant[]; initial: number }) {
  const t = useTranslations("gallery");
  const [chosen, setChosen] = useState(
    Math.max(
      0,
      variants.findIndex((variant) => variant.id === initial),
    ),
  );
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  const choose = (index: number, focus: boolean) => {
    const next = (index + variants.length) % variants.length;
    setChosen(next);
    if (focus) tabs.current[next]?.focus();
    const url = new URL(window.location.href);
    url.searchParams.set("variant", String(variants[next]?.id));
    window.history.replaceState(window.history.state, "", url);
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target as HTMLElement;
      if (target.closest("input, textarea, select, [contenteditable]")) return;
      if (/^[1-9]$/.test(event.key) && Number(event.key) <= variants.length) {
        event.preventDefault();
        choose(Number(event.key) - 1, true);
      } else if (event.key === "Escape") {
        event.preventDefault();
        const back = document.referrer && new URL(document.referrer).origin === window.location.origin;
        if (back && window.history.length > 1) window.history.back();
        else window.location.assign("/screens");
      }
    };
    window.addEventListener("keydown", onKey);
    markKeysReady();
    return () => window.removeEventListener("keydown", onKey);
  });

  const label = (variant: ViewerVariant) =>
    [
      t(`values.viewport.${variant.viewport}`),
      t(`values.lang.${variant.lang}`),
      t(variant.signed_in ? "signedIn" : "signedOut"),
      variant.mode ? t(`values.mode.${variant.mode}`) : null,
    ]
      .filter(Boolean)
      .join(" · ");
  const current = variants[chosen] as ViewerVariant;
  return (
    <section className="variants" aria-label={t("variants")}>
      <div role="tablist" aria-label={t("variants")} className="variant-tabs">
        {variants.map((variant, index) => (
          <button
            key={variant.id}
            ref={(element) => {
              tabs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`variant-tab-${variant.id}`}
            aria-selected={index === chosen}
            aria-controls="variant-panel"
            tabIndex={index === chosen ? 0 : -1}
            onClick={() => choose(index, false)}
            onKeyDown={(event) => {
              const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
              if (step !== undefined) {
                event.preventDefault();
                choose(index + step, true);
              } else if (event.key === "Home" || event.key === "End") {
                event.preventDefault();
                choose(event.key === "Home" ? 0 : variants.length - 1, true);
              }
            }}
          >
            <span className="variant-thumb">
              {/* biome-ignore lint/performance/noImgElement: the gallery's own immutable image route */}
              <img
                src={variant.image.url}
                width={variant.image.width}
                height={variant.image.height}
                alt=""
                loading="lazy"
              />
            </span>
            <span className="variant-label">
              <kbd>{index + 1}</kbd> {label(variant)}
            </span>
          </button>
        ))}
      </div>
      <div id="variant-panel" role="tabpanel" aria-labelledby={`variant-tab-${current.id}`} className="variant-panel">
        <figure className="variant-full">
          {/* biome-ignore lint/performance/noImgElement: the captured image at its own size */}
          <img
            key={current.id}
            src={current.image.url}
            width={current.image.width}
            height={current.image.height}
            alt={t("imageAlt", { title: current.title ?? "", variant: label(current) })}
          />
          <figcaption className="muted">
            {label(current)} · {current.image.width} × {current.image.height}
          </figcaption>
        </figure>
        <section className="evidence card" aria-labelledby="evidence-title">
          <h2 id="evidence-title">{t("evidence")}</h2>
          <dl className="facts">
            <dt>{t("run")}</dt>
            <dd>
              <code>{current.evidence.run_id}</code>
            </dd>
            <dt>{t("captureKey")}</dt>
            <dd>
              <code>{current.evidence.capture_key}</code>
            </dd>
            <dt>{t("finalUrl")}</dt>
            <dd>
              <code>{current.evidence.final_url ?? "—"}</code>
            </dd>
            <dt>{t("httpStatus")}</dt>
            <dd>{current.evidence.http_status ?? "—"}</dd>
            <dt>{t("builds")}</dt>
            <dd>{current.evidence.build_versions?.join(", ") || "—"}</dd>
            <dt>{t("capturedAt")}</dt>
            <dd>
              <time dateTime={current.evidence.captured_at}>
                {current.evidence.captured_at.replace("T", " ").slice(0, 16)} UTC
              </time>
            </dd>
          </dl>
        </section>
      </div>
    </section>
  );
}
