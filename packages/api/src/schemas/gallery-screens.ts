import { captureImageTypes, collectLangs, collectViewports, colorModes, galleryPlatforms } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime } from "./common";

/*
 * The gallery's screens list as it answers (contract section 4): its cards, facets and page, the sorts and the term
 * filters. The gallery's querying (design-gallery/query/) builds these; the route's input and the other answers are
 * in routers/design-gallery/schemas.ts.
 */

export const screenSorts = ["newest", "oldest", "name"] as const;
export type ScreenSort = (typeof screenSorts)[number];

/** The list filters over terms: each takes several names, all of which a screen must have. */
export const termFilters = {
  patterns: "pattern",
  components: "component",
  elements: "element",
  fonts: "font",
  colors: "color",
} as const;
export type TermFilter = keyof typeof termFilters;

export const GalleryImage = z
  .object({
    url: z.string().meta({ description: "The image route: immutable bytes, strong ETag (the sha256), Range." }),
    type: z.enum(captureImageTypes),
    width: z.number().int(),
    height: z.number().int(),
    size: z.number().int().meta({ description: "Bytes." }),
    sha256: z.string(),
  })
  .meta({ id: "GalleryImage" });

export const GalleryAppRef = z
  .object({ id: z.number().int(), slug: z.string(), platform: z.enum(galleryPlatforms) })
  .meta({ id: "GalleryAppRef" });

/** Which state of a page a variant shows. */
export const VariantState = {
  viewport: z.enum(collectViewports),
  lang: z.enum(collectLangs),
  signed_in: z.boolean(),
  mode: z.enum(colorModes).nullable().meta({ description: "Null when the collector did not say." }),
};

export const GalleryScreenCard = z
  .object({
    id: z.number().int(),
    app: GalleryAppRef,
    page: z.string(),
    title: z.string().nullable(),
    page_type: z.string().nullable().meta({ description: "A page type's slug." }),
    captured_at: DateTime,
    variant_count: z.number().int(),
    thumbnail: z.object({ variant_id: z.number().int(), ...VariantState, image: GalleryImage }).meta({
      description:
        "The first variant matching the viewport, language and mode filters, in viewport, language (ko first), signed-out-first and mode order.",
    }),
  })
  .meta({ id: "GalleryScreenCard" });
export type GalleryScreenCard = z.infer<typeof GalleryScreenCard>;

export const FacetValue = z
  .object({ value: z.string(), label: z.string(), count: z.number().int() })
  .meta({ id: "GalleryFacetValue" });
export type FacetValue = z.infer<typeof FacetValue>;

export const facetNames = [
  "platform",
  "app",
  "kind",
  "viewport",
  "lang",
  "mode",
  "patterns",
  "components",
  "elements",
  "fonts",
  "colors",
] as const;
export type FacetName = (typeof facetNames)[number];

export const ScreenFacets = z
  .object(
    Object.fromEntries(facetNames.map((name) => [name, z.array(FacetValue)])) as Record<
      FacetName,
      z.ZodArray<typeof FacetValue>
    >,
  )
  .meta({
    id: "GalleryScreenFacets",
    description:
      "For each filter, its values with the number of screens the list would hold with that value: `platform`, `app`, `kind`, `viewport`, `lang` and `mode` (one value each) as if that value replaced the filter's own; the term filters (`patterns` ... `colors`, where every name must match) as if the value were added to them. Only values with screens are listed, most screens first.",
  });
export type ScreenFacets = z.infer<typeof ScreenFacets>;

export const ScreensPage = z
  .object({
    items: z.array(GalleryScreenCard),
    page: z.number().int(),
    page_size: z.number().int(),
    cols: z.number().int(),
    pages: z.number().int().meta({ description: "Pages in all (0 when nothing matches)." }),
    total: z.number().int().meta({ description: "Screens matching the filters." }),
    sort: z.enum(screenSorts),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: "Give it back as `cursor` for the screens after this page's; null on the last page." }),
    facets: ScreenFacets.nullable().meta({ description: "Null when asked with facets=false." }),
  })
  .meta({ id: "GalleryScreensPage" });
export type ScreensPage = z.infer<typeof ScreensPage>;
