import {
  type CollectLang,
  type CollectViewport,
  type ColorMode,
  collectLangs,
  collectViewports,
} from "@shelf/db/enums";

/*
 * Which states a screen has variants in, as one integer (gallery_screens.variant_mask): a bit for each viewport,
 * language and mode (light, dark, unsaid) there is a variant in, 12 in all. The `viewport`, `lang` and `mode`
 * filters ask whether one variant has all of the given values: the mask holds a bit matching them. Kept on the
 * screen (and in its facts index) so that filtering and counting facets never read the variants themselves.
 */

const MODES: (ColorMode | null)[] = ["light", "dark", null];

/** The bit of one state. */
export function variantBit(viewport: CollectViewport, lang: CollectLang, mode: ColorMode | null): number {
  const index = (collectViewports.indexOf(viewport) * collectLangs.length + collectLangs.indexOf(lang)) * 3;
  return 1 << (index + MODES.indexOf(mode));
}

/** A screen's mask: the bits of its variants' states. */
export function variantMask(
  variants: readonly { viewport: CollectViewport; lang: CollectLang; mode?: ColorMode | null }[],
): number {
  return variants.reduce((mask, variant) => mask | variantBit(variant.viewport, variant.lang, variant.mode ?? null), 0);
}

/** The bits of every state with the given values (each absent one any): a screen matches when it has one of them. */
export function matchingMask(wanted: { viewport?: string | null; lang?: string | null; mode?: string | null }): number {
  let mask = 0;
  for (const viewport of collectViewports) {
    for (const lang of collectLangs) {
      for (const mode of MODES) {
        if (wanted.viewport && wanted.viewport !== viewport) continue;
        if (wanted.lang && wanted.lang !== lang) continue;
        if (wanted.mode && wanted.mode !== mode) continue;
        mask |= variantBit(viewport, lang, mode);
      }
    }
  }
  return mask;
}
