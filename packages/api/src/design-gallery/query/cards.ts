import type { CaptureImageType } from "@shelf/db/enums";
import { type SQL, sql } from "drizzle-orm";
import type { GalleryScreenCard, ScreenSort } from "../../schemas/gallery-screens";
import { isoSql } from "../../sql-text";

/*
 * Screen cards, as lists show them (the screens list, an app's screens, a flow's steps): the statement that reads a
 * page of them with each one's thumbnail, and the card a row makes.
 */

/** Where image links point: the host's public base URL; empty, paths on whatever host serves the answer (pages). */
export type GalleryLinks = { baseUrl: string };

export const imagePath = (screenId: number, variantId: number) =>
  `/api/v1/screens/${screenId}/variants/${variantId}/image`;

export const imageUrl = (links: GalleryLinks, screenId: number, variantId: number) =>
  links.baseUrl ? new URL(imagePath(screenId, variantId), links.baseUrl).toString() : imagePath(screenId, variantId);

export const ORDER: Record<ScreenSort, SQL> = {
  newest: sql`s.captured_at desc, s.id desc`,
  oldest: sql`s.captured_at, s.id`,
  name: sql`(coalesce(s.title, s.page) COLLATE "C"), s.id`,
};

/** Variants in the gallery's order: viewport, language (ko first), signed out first, light, dark, unsaid. */
export const VARIANT_ORDER = sql`v.viewport, v.lang <> 'ko', v.auth, v.mode is null, v.mode = 'dark', v.id`;

export type CardRow = {
  id: number;
  page: string;
  title: string | null;
  page_type: string | null;
  captured_at: string;
  app_id: number;
  app_slug: string;
  app_platform: "web";
  variant_count: number;
  variant_id: number;
  viewport: "desktop" | "mobile";
  lang: "ko" | "en";
  auth: boolean;
  mode: "light" | "dark" | null;
  image_type: CaptureImageType;
  image_width: number;
  image_height: number;
  image_size: number;
  image_sha256: string;
};

/** Screen cards: the screens `where` selects, in `order`, each with its thumbnail (a variant `thumbnail` matches). */
export function cardsQuery(where: SQL, order: SQL, thumbnail: SQL, page?: { limit: number; offset: number }): SQL {
  // The page's screens first, then each one's app, thumbnail and variant count: never for the screens it skips.
  return sql`
    select s.id, s.page, s.title, s.page_type, ${sql.raw(isoSql("s.captured_at"))} as captured_at,
      a.id as app_id, a.slug as app_slug, a.platform as app_platform,
      (select count(*)::int from gallery_screen_variants c where c.screen_id = s.id) as variant_count,
      th.id as variant_id, th.viewport, th.lang, th.auth, th.mode, th.image_type, th.image_width, th.image_height,
      th.image_size, th.image_sha256
    from (
      select s.id, s.app_id, s.page, s.title, s.page_type, s.captured_at from gallery_screens s
      where ${where}
      order by ${order}
      ${page ? sql`limit ${page.limit} offset ${page.offset}` : sql``}
    ) s
    join gallery_apps a on a.id = s.app_id
    cross join lateral (
      select v.id, v.viewport, v.lang, v.auth, v.mode, v.image_type, v.image_width, v.image_height, v.image_size,
        v.image_sha256
      from gallery_screen_variants v where v.screen_id = s.id and ${thumbnail}
      order by ${VARIANT_ORDER} limit 1
    ) th
    order by ${order}`;
}

export function cardOf(row: CardRow, links: GalleryLinks): GalleryScreenCard {
  return {
    id: row.id,
    app: { id: row.app_id, slug: row.app_slug, platform: row.app_platform },
    page: row.page,
    title: row.title,
    page_type: row.page_type,
    captured_at: row.captured_at,
    variant_count: row.variant_count,
    thumbnail: {
      variant_id: row.variant_id,
      viewport: row.viewport,
      lang: row.lang,
      signed_in: row.auth,
      mode: row.mode,
      image: {
        url: imageUrl(links, row.id, row.variant_id),
        type: row.image_type,
        width: row.image_width,
        height: row.image_height,
        size: row.image_size,
        sha256: row.image_sha256,
      },
    },
  };
}
