import { getTranslations } from "next-intl/server";

export type Card = {
  id: number;
  app: { id: number; slug: string };
  page: string;
  title: string | null;
  page_type: string | null;
  variant_count: number;
  thumbnail: { viewport: string; lang: string; image: { url: string; width: number; height: number } };
};

/**
 * A screen in a grid: its thumbnail at its own size (the box is reserved before the image arrives: no layout shift),
 * loaded when it comes near the view, and the link to its page. `step` numbers it in a flow.
 */
export async function ScreenCard({ card, step, eager = false }: { card: Card; step?: number; eager?: boolean }) {
  const t = await getTranslations("gallery");
  const name = card.title ?? card.page;
  return (
    <li className="screen-card">
      <a href={`/screens/${card.id}`} className="screen-link" data-grid-item="">
        <span className="thumb">
          {/* biome-ignore lint/performance/noImgElement: the gallery's own immutable image route, sized by its width and height */}
          <img
            src={card.thumbnail.image.url}
            width={card.thumbnail.image.width}
            height={card.thumbnail.image.height}
            loading={eager ? "eager" : "lazy"}
            decoding="async"
            alt=""
          />
        </span>
        <span className="screen-name">
          {step !== undefined && <span className="step-number">{step}</span>}
          {name}
        </span>
      </a>
      <span className="screen-meta muted">
        <span>{card.app.slug}</span>
        {card.page_type && <span>{card.page_type}</span>}
        <span>{t("variantCount", { count: card.variant_count })}</span>
      </span>
    </li>
  );
}
