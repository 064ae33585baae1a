import {
  collectLangs,
  collectViewports,
  colorModes,
  galleryFlowKinds,
  galleryPlatforms,
  galleryStatuses,
  galleryTermKinds,
} from "@shelf/db/enums";
import { z } from "zod";
import { DateTime, IdParam } from "../../schemas/common";
import {
  GalleryAppRef,
  GalleryImage,
  GalleryScreenCard,
  screenSorts,
  VariantState,
} from "../../schemas/gallery-screens";

/*
 * The gallery API's shapes (contract section 4, scheme `design_gallery`: no credentials). Answers name their resource
 * (`{ screen }`, `{ app }`, `{ taxonomy }`); lists are `{ items, ... }`.
 */

/** Grid paging: the page holds whole rows of `cols` screens, at least MIN_PAGE_SCREENS of them. */
export const GALLERY_GRID = {
  defaultCols: 4,
  maxCols: 12,
  minPageScreens: 24,
  maxPage: 10_000,
  maxLimit: 100,
  maxCursor: 4000,
} as const;

/** Screens a page holds for a grid of `cols` columns: the fewest whole rows that hold at least 24 screens. */
export function pageSizeFor(cols: number): number {
  return cols * Math.ceil(GALLERY_GRID.minPageScreens / cols);
}

/** Most names one list filter takes, and longest name. */
export const MAX_FILTER_NAMES = 10;
const MAX_NAME = 100;
export const MAX_QUERY = 200;

/**
 * Several names, as repeated parameters (`patterns=a&patterns=b`), a comma list (`patterns=a,b`), or both; empty
 * names are dropped and each name counts once.
 */
const NameList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => [
    ...new Set(
      (Array.isArray(value) ? value : [value])
        .flatMap((text) => text.split(","))
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(
    z
      .array(z.string().max(MAX_NAME, { error: `each name must be at most ${MAX_NAME} characters` }))
      .max(MAX_FILTER_NAMES, { error: `at most ${MAX_FILTER_NAMES} names` }),
  );

const namesDescription = (what: string) =>
  `${what}: every one named must be on the screen. Several as repeated parameters or a comma list (or both), at most ${MAX_FILTER_NAMES}. A name the gallery has never seen is 422.`;

export const ScreensInput = z.object({
  platform: z.enum(galleryPlatforms).meta({ description: "The apps' platform." }).optional(),
  app: z.string().max(MAX_NAME).meta({ description: "An app's slug (`accounts`): its screens only." }).optional(),
  q: z
    .string()
    .max(MAX_QUERY)
    .meta({
      description:
        "Words to find, in Korean or English: each must be part of a word of the screen's app name, page, titles, visible text (from the captured HTML) or tags (`결제` finds `간편결제`, `check` finds `checkout`). Case and compatibility forms (full-width letters) do not matter. Empty: no filter.",
    })
    .optional(),
  sort: z
    .enum(screenSorts)
    .meta({
      description:
        "`newest` (default: the newest capture first), `oldest`, or `name` (title, else page, in code-point order). Ties go by id, so pages never overlap.",
    })
    .optional(),
  viewport: z.enum(collectViewports).meta({ description: "Screens with a variant at this viewport." }).optional(),
  lang: z.enum(collectLangs).meta({ description: "Screens with a variant in this language." }).optional(),
  mode: z.enum(colorModes).meta({ description: "Screens with a variant in this color scheme." }).optional(),
  kind: z
    .string()
    .max(MAX_NAME)
    .meta({ description: "A page type's slug (`sign-in`, `list`): screens of that type. Unknown: 422." })
    .optional(),
  patterns: NameList.meta({ description: namesDescription("Pattern slugs (`empty-state`)") }).optional(),
  components: NameList.meta({ description: namesDescription("Component slugs (`librarygrid`)") }).optional(),
  elements: NameList.meta({ description: namesDescription("Element slugs (`button`, `text-field`)") }).optional(),
  fonts: NameList.meta({ description: namesDescription("Font families, lowercase (`pretendard`)") }).optional(),
  colors: NameList.meta({
    description: namesDescription("Colors as `#rrggbb` or `#rrggbbaa` (`#` optional)"),
  }).optional(),
  cols: z
    .number({ error: "must be an integer" })
    .int({ error: "must be an integer" })
    .min(1, { error: "must be at least 1" })
    .max(GALLERY_GRID.maxCols, { error: `must be at most ${GALLERY_GRID.maxCols}` })
    .meta({
      description: `The grid's columns (default ${GALLERY_GRID.defaultCols}): a page holds the fewest whole rows of them that make at least ${GALLERY_GRID.minPageScreens} screens (cols × ceil(${GALLERY_GRID.minPageScreens} / cols): 24 for 1, 2, 3, 4, 6, 8 and 12 columns, 25 for 5, 27 for 9, 28 for 7, 30 for 10, 33 for 11).`,
    })
    .optional(),
  page: z
    .number({ error: "must be an integer" })
    .int({ error: "must be an integer" })
    .min(1, { error: "must be at least 1" })
    .max(GALLERY_GRID.maxPage, { error: `must be at most ${GALLERY_GRID.maxPage}` })
    .meta({ description: "Which page, from 1 (default 1); a page past the last is empty." })
    .optional(),
  facets: z
    .boolean({ error: "must be true or false" })
    .meta({
      description:
        "Whether the answer carries `facets` (default true); false for the next pages of a grid whose facets are known.",
    })
    .optional(),
  limit: z
    .number({ error: "must be an integer" })
    .int({ error: "must be an integer" })
    .min(1, { error: "must be at least 1" })
    .max(GALLERY_GRID.maxLimit, { error: `must be at most ${GALLERY_GRID.maxLimit}` })
    .meta({
      description: `Screens a page when paging by \`cursor\` (default ${GALLERY_GRID.minPageScreens}, at most ${GALLERY_GRID.maxLimit}); given, it pages by cursor from the first screen instead of by \`page\` and \`cols\`.`,
    })
    .optional(),
  cursor: z
    .string()
    .max(GALLERY_GRID.maxCursor, { error: `must be at most ${GALLERY_GRID.maxCursor} characters` })
    .meta({
      description:
        "The `next_cursor` of the answer before: the screens after its last one, under the same query (the cursor carries its filters and sort: send it alone, or with the same ones; others are 422). Screens added meanwhile never shift or repeat what is left.",
    })
    .optional(),
});
export type ScreensInput = z.input<typeof ScreensInput>;
export type ScreensQuery = z.output<typeof ScreensInput>;

export const TermUse = z
  .object({
    slug: z.string(),
    label: z.string(),
    uses: z.number().int().meta({
      description:
        "For tags: how many of the screen's variants named it; for fonts and colors: declarations using it in the CSS.",
    }),
  })
  .meta({ id: "GalleryTermUse" });

export const FontUse = TermUse.extend({
  generic: z.boolean().meta({ description: "A generic family (`sans-serif`), not a named one." }),
}).meta({ id: "GalleryFontUse" });

export const ScreenVariant = z
  .object({
    id: z.number().int(),
    ...VariantState,
    title: z.string().nullable(),
    url: z.string().meta({ description: "The address the collector asked for." }),
    image: GalleryImage,
    evidence: z
      .object({
        run_id: z.number().int().meta({ description: "The collect run that captured it." }),
        capture_key: z.string(),
        final_url: z.string().nullable(),
        http_status: z.number().int().nullable(),
        build_versions: z
          .array(z.string())
          .nullable()
          .meta({ description: "The builds the run's collector saw (null when it did not say)." }),
        captured_at: DateTime,
      })
      .meta({ description: "Where the image comes from: the capture and its run." }),
  })
  .meta({ id: "GalleryScreenVariant" });

export const ScreenHistoryEntry = z
  .object({
    id: z.number().int(),
    run_id: z.number().int(),
    status: z.enum(galleryStatuses),
    captured_at: DateTime,
  })
  .meta({ id: "GalleryScreenHistoryEntry" });

export const GalleryScreenDetail = z
  .object({
    id: z.number().int(),
    app: GalleryAppRef.extend({ origin: z.string() }),
    page: z.string(),
    title: z.string().nullable(),
    page_type: z.object({ slug: z.string(), label: z.string() }).nullable(),
    status: z.enum(galleryStatuses),
    current: z.boolean().meta({ description: "Whether the gallery shows it now." }),
    replaced_by_id: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The newer screen of the same page that replaced it (null while current or removed)." }),
    current_id: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The page's current screen: itself, a later replacement, or null when the page is gone." }),
    run_id: z.number().int(),
    retired_by_run_id: z.number().int().nullable(),
    captured_at: DateTime,
    variants: z.array(ScreenVariant),
    page_types: z.array(TermUse),
    patterns: z.array(TermUse),
    elements: z.array(TermUse),
    components: z.array(TermUse),
    colors: z.array(TermUse),
    fonts: z.array(FontUse),
    history: z
      .array(ScreenHistoryEntry)
      .meta({ description: "Every screen of this page, by run (oldest first), this one included." }),
  })
  .meta({ id: "GalleryScreenDetail" });
export type GalleryScreenDetail = z.infer<typeof GalleryScreenDetail>;

export const ScreenAnswer = z.object({ screen: GalleryScreenDetail });

export const GalleryFlow = z
  .object({
    id: z.number().int(),
    kind: z.enum(galleryFlowKinds),
    slug: z.string(),
    name: z.string().nullable(),
    signed_in: z.boolean().nullable().meta({ description: "A walk's signed-in state; null for a declared flow." }),
    viewport: z.enum(collectViewports).nullable().meta({ description: "A walk's viewport; null for a declared flow." }),
    lang: z.enum(collectLangs).nullable().meta({ description: "A walk's language; null for a declared flow." }),
    run_id: z.number().int(),
    steps: z.array(
      z.object({
        position: z.number().int(),
        flow_step: z.number().int().nullable(),
        screen: GalleryScreenCard.meta({ description: "The step's page as the gallery shows it now." }),
      }),
    ),
  })
  .meta({ id: "GalleryFlow" });

export const GalleryAppDetail = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    platform: z.enum(galleryPlatforms),
    origin: z.string(),
    first_run_id: z.number().int(),
    last_run_id: z.number().int(),
    screen_count: z.number().int(),
    fonts: z.array(FontUse),
    colors: z.array(TermUse),
    flows: z.array(GalleryFlow),
    screens: z.array(GalleryScreenCard),
  })
  .meta({ id: "GalleryAppDetail" });

export const AppAnswer = z.object({ app: GalleryAppDetail });

export const IdInput = z.object({ id: IdParam });
export const VariantImageInput = z.object({ id: IdParam, variant: IdParam });

export const PatternData = z
  .object({
    slug: z.string(),
    label: z.string(),
    definition: z.string().nullable().meta({ description: "What the pattern is, for the patterns the gallery knows." }),
    count: z.number().int().meta({ description: "Current screens showing it." }),
  })
  .meta({ id: "GalleryPattern" });

export const PatternsAnswer = z.object({
  items: z.array(PatternData),
  total: z.number().int(),
});

export const TaxonomyTerm = z
  .object({
    slug: z.string(),
    label: z.string(),
    count: z.number().int().meta({ description: "Current screens with it." }),
  })
  .meta({ id: "GalleryTaxonomyTerm" });
export const TaxonomyFont = TaxonomyTerm.extend({ generic: z.boolean() }).meta({ id: "GalleryTaxonomyFont" });

/** Each term kind as the taxonomy answer names its list. */
export const taxonomyLists = {
  page_type: "page_types",
  pattern: "patterns",
  element: "elements",
  component: "components",
  font: "fonts",
  color: "colors",
} as const;

export const TaxonomyInput = z.object({
  kind: z
    .enum(galleryTermKinds)
    .meta({ description: "One kind only (`page_type`, `pattern`, `element`, `component`, `font`, `color`)." })
    .optional(),
});

export const Taxonomy = z
  .object({
    page_types: z.array(TaxonomyTerm).optional(),
    patterns: z.array(TaxonomyTerm).optional(),
    elements: z.array(TaxonomyTerm).optional(),
    components: z.array(TaxonomyTerm).optional(),
    fonts: z.array(TaxonomyFont).optional(),
    colors: z.array(TaxonomyTerm).optional(),
  })
  .meta({
    id: "GalleryTaxonomy",
    description: "Each kind's terms that current screens have, most screens first; only the asked kind with `kind`.",
  });
export const TaxonomyAnswer = z.object({ taxonomy: Taxonomy });
