import { createHash } from "node:crypto";
import type { GalleryTermKind } from "@shelf/db/enums";
import type { CaptureMeta } from "../schemas/capture-meta";
import type {
  CurrentScreen,
  PlannedScreen,
  TermUse,
  VariantFields,
  VariantKey,
  VisibleTexts,
  Visit,
} from "./plan-types";
import { searchColumns, searchWords } from "./search";
import type { StyleFacts } from "./styles";
import { variantMask } from "./variant-mask";
import { compareKeys, compareText, keyText, termKey } from "./visits";

/*
 * A planned screen: its variants, its terms (from the captures' meta and the CSS's fonts and colors), its search
 * columns and its content hash; and an app's fonts and colors from its screens.
 */

export function sha256(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
}

export function slugify(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, "-");
}

export function variantOf(visit: Visit): VariantFields {
  const { capture } = visit;
  return {
    captureId: capture.id,
    runId: capture.runId,
    viewport: capture.viewport,
    lang: capture.lang,
    auth: capture.auth,
    mode: visit.key.mode,
    title: visit.meta.title?.trim() || null,
    url: capture.url,
    imageKey: capture.imageKey,
    imageType: capture.imageType,
    imageSha256: capture.imageSha256,
    imageSize: capture.imageSize,
    imageWidth: capture.imageWidth,
    imageHeight: capture.imageHeight,
    htmlKey: capture.htmlKey,
    htmlSize: capture.htmlSize,
    capturedAt: capture.createdAt,
  };
}

export const variantKey = (variant: VariantFields): VariantKey => ({
  viewport: variant.viewport,
  lang: variant.lang,
  auth: variant.auth,
  mode: variant.mode ?? null,
});

/** Terms of the meta of a screen's variants: each counted once per variant that names it. */
function metaTerms(metas: readonly CaptureMeta[]): TermUse[] {
  const terms = new Map<string, TermUse>();
  const add = (kind: GalleryTermKind, text: string, seen: Set<string>) => {
    const label = text.trim();
    const slug = slugify(label);
    const id = termKey(kind, slug);
    if (!slug || seen.has(id)) return;
    seen.add(id);
    const known = terms.get(id);
    terms.set(id, {
      kind,
      slug,
      label: known && compareText(known.label, label) <= 0 ? known.label : label,
      generic: false,
      uses: (known?.uses ?? 0) + 1,
    });
  };
  for (const meta of metas) {
    const seen = new Set<string>();
    if (meta.page_type) add("page_type", meta.page_type, seen);
    for (const pattern of meta.patterns ?? []) add("pattern", pattern, seen);
    for (const element of meta.elements ?? []) add("element", element, seen);
    for (const component of meta.components ?? []) add("component", component, seen);
  }
  return [...terms.values()];
}

/** Fonts and colors as terms. */
export function styleTerms(facts: StyleFacts | undefined): TermUse[] {
  if (!facts) return [];
  const terms: TermUse[] = [];
  for (const [slug, font] of facts.fonts) {
    terms.push({ kind: "font", slug, label: font.label, generic: font.generic, uses: font.uses });
  }
  for (const [color, uses] of facts.colors)
    terms.push({ kind: "color", slug: color, label: color, generic: false, uses });
  return terms;
}

const sortTerms = (terms: TermUse[]) =>
  terms.sort((a, b) => compareText(a.kind, b.kind) || compareText(a.slug, b.slug));

export function screenOf(
  appSlug: string,
  page: string,
  variants: VariantFields[],
  metas: CaptureMeta[],
  style: TermUse[],
  replaces: number | null,
  texts: VisibleTexts,
): PlannedScreen {
  variants.sort((a, b) => compareKeys(variantKey(a), variantKey(b)));
  const terms = sortTerms([...metaTerms(metas), ...style]);
  const pageTypes = terms.filter((term) => term.kind === "page_type");
  const pageType = pageTypes.reduce<TermUse | null>(
    (best, term) => (!best || term.uses > best.uses ? term : best),
    null,
  );
  const title = variants.find((variant) => variant.title)?.title ?? null;
  const words = [...searchWords(appSlug), ...searchWords(page)];
  for (const variant of variants) {
    if (variant.title) words.push(...searchWords(variant.title));
    words.push(...searchWords(texts.get(variant.captureId) ?? ""));
  }
  for (const term of terms) if (term.kind !== "font" && term.kind !== "color") words.push(...searchWords(term.label));
  const { searchText, searchGrams } = searchColumns(words);
  return {
    appSlug,
    page,
    title,
    pageType: pageType?.slug ?? null,
    capturedAt: new Date(Math.max(...variants.map((variant) => variant.capturedAt?.getTime() ?? 0))),
    contentSha256: sha256({
      title,
      pageType: pageType?.slug ?? null,
      variants: variants.map((variant) => [keyText(variantKey(variant)), variant.imageSha256, variant.title]),
      terms: terms.map((term) => termKey(term.kind, term.slug)),
    }),
    searchText,
    searchGrams,
    variantMask: variantMask(variants),
    variants,
    terms,
    replaces,
  };
}

/** An app's fonts and colors: each term of its screens current after the replay, at its largest use on one of them. */
export function appStyleTerms(
  app: string,
  screens: readonly PlannedScreen[],
  removedScreens: readonly number[],
  currentScreens: readonly CurrentScreen[],
): TermUse[] {
  const retired = new Set([...removedScreens, ...screens.flatMap((screen) => screen.replaces ?? [])]);
  const live = [
    ...screens.filter((screen) => screen.appSlug === app).map((screen) => screen.terms),
    ...currentScreens.filter((screen) => screen.appSlug === app && !retired.has(screen.id)).map((s) => s.styleTerms),
  ];
  const terms = new Map<string, TermUse>();
  for (const term of live.flat()) {
    if (term.kind !== "font" && term.kind !== "color") continue;
    const id = termKey(term.kind, term.slug);
    const known = terms.get(id);
    if (!known || term.uses > known.uses) terms.set(id, { ...term });
  }
  return sortTerms([...terms.values()]);
}
