import type { CssNode } from "css-tree";
import * as csstree from "css-tree";
import { COLOR_FUNCTIONS, functionColor, hexColor, namedColor } from "./colors";

/*
 * Fonts and colors of a page, read from the CSS its capture named, with css-tree (a real parser: at-rules such as
 * @media, @supports and @layer are walked like top-level rules, comments and strings never mistaken for values).
 *
 * Counting: `uses` is the number of declarations that use a font family or a color, each counted once per
 * declaration however often it repeats there.
 * - Fonts: every family named by `font-family`, by the `font` shorthand (the families after its size), and by
 *   `@font-face` (each face rule counts once: a family loaded in four weights counts four). CSS-wide keywords are
 *   not families; generic families (`sans-serif`, `system-ui`, ...) are kept, marked generic.
 * - Colors: every color in any declaration's value (see colors.ts for the forms read), except in properties whose
 *   identifiers are names (`font`, `animation-name`, `grid-area`, ...). A custom property's own definition counts as
 *   a declaration; in it a bare color name counts only when it is the whole value (`--brand: red`, never the `Red`
 *   of `--font: Red Hat Display`).
 * - `var(--x)` is resolved against every definition of `--x` in the sheets analysed together (all the sheets one page
 *   named, whichever declares it): a use of a property defined for light and for dark (an @media block) counts both
 *   colors; an undefined property takes its fallback. Cycles and chains deeper than 16 resolve to nothing.
 */

export type FontUse = { label: string; uses: number; generic: boolean };
export type StyleFacts = {
  /** By slug: the family name in lowercase with its spaces collapsed. */
  fonts: Map<string, FontUse>;
  /** By color (`#rrggbb` or `#rrggbbaa`): its uses. */
  colors: Map<string, number>;
};

type Declaration = { property: string; value: CssNode[]; fontFace: boolean };

/** One stylesheet's declarations, parsed once; analyseStyles reads several together. */
export type ParsedSheet = { declarations: Declaration[] };

export function parseSheet(text: string): ParsedSheet {
  const declarations: Declaration[] = [];
  const ast = csstree.parse(text.replace(/^\uFEFF/, ""), { parseCustomProperty: false, onParseError: () => {} });
  csstree.walk(ast, {
    visit: "Declaration",
    enter(node) {
      const custom = node.property.startsWith("--");
      const property = custom ? node.property : node.property.toLowerCase();
      const value = node.value.type === "Raw" ? parseValue(node.value.value) : node.value.children.toArray();
      declarations.push({ property, value, fontFace: this.atrule?.name.toLowerCase() === "font-face" });
    },
  });
  return { declarations };
}

/** A value's tokens from its text (custom properties and var() fallbacks are kept raw by the parser). */
function parseValue(text: string): CssNode[] {
  if (text.trim() === "") return [];
  try {
    const node = csstree.parse(text, { context: "value", onParseError: () => {} });
    return node.type === "Value" ? node.children.toArray() : [];
  } catch {
    return [];
  }
}

/** Properties whose identifiers are names, never colors. */
const NAMING_PROPERTIES = new Set([
  "font",
  "font-family",
  "animation",
  "animation-name",
  "transition",
  "transition-property",
  "will-change",
  "grid",
  "grid-area",
  "grid-template",
  "grid-template-areas",
  "grid-row",
  "grid-row-start",
  "grid-row-end",
  "grid-column",
  "grid-column-start",
  "grid-column-end",
  "counter-reset",
  "counter-increment",
  "counter-set",
  "list-style",
  "list-style-type",
  "container",
  "container-name",
  "view-transition-name",
  "anchor-name",
  "position-anchor",
]);

const WIDE_KEYWORDS = new Set(["inherit", "initial", "unset", "revert", "revert-layer", "default"]);
const GENERIC_FAMILIES = new Set([
  "serif",
  "sans-serif",
  "monospace",
  "cursive",
  "fantasy",
  "system-ui",
  "ui-serif",
  "ui-sans-serif",
  "ui-monospace",
  "ui-rounded",
  "math",
  "emoji",
  "fangsong",
]);
const SYSTEM_FONTS = new Set(["caption", "icon", "menu", "message-box", "small-caption", "status-bar"]);
const SIZE_KEYWORDS = new Set([
  "xx-small",
  "x-small",
  "small",
  "medium",
  "large",
  "x-large",
  "xx-large",
  "xxx-large",
  "smaller",
  "larger",
]);

const MAX_DEPTH = 16;
/** At most this many readings of one value when its var()s have several definitions each. */
const MAX_ALTERNATIVES = 32;

/** The fonts and colors of the sheets one page (or one app) used, read together. */
export function analyseStyles(sheets: readonly ParsedSheet[]): StyleFacts {
  const definitions = new Map<string, CssNode[][]>();
  for (const sheet of sheets) {
    for (const declaration of sheet.declarations) {
      if (!declaration.property.startsWith("--")) continue;
      const list = definitions.get(declaration.property) ?? [];
      list.push(declaration.value);
      definitions.set(declaration.property, list);
    }
  }
  const resolver = new Resolver(definitions);
  const fonts = new Map<string, FontUse>();
  const colors = new Map<string, number>();

  for (const sheet of sheets) {
    for (const { property, value, fontFace } of sheet.declarations) {
      const families = new Map<string, string>();
      if (property === "font-family") {
        for (const tokens of resolver.expand(value))
          for (const [slug, label] of familyList(tokens)) families.set(slug, label);
      } else if (property === "font" && !fontFace) {
        for (const tokens of resolver.expand(value)) {
          for (const [slug, label] of shorthandFamilies(tokens)) families.set(slug, label);
        }
      }
      for (const [slug, label] of families) {
        const known = fonts.get(slug);
        fonts.set(slug, {
          label: known && known.label < label ? known.label : label,
          uses: (known?.uses ?? 0) + 1,
          generic: GENERIC_FAMILIES.has(slug),
        });
      }

      if (fontFace || NAMING_PROPERTIES.has(property)) continue;
      const custom = property.startsWith("--");
      for (const color of resolver.colors(value, !custom || value.length === 1, 0, new Set())) {
        colors.set(color, (colors.get(color) ?? 0) + 1);
      }
    }
  }
  return { fonts, colors };
}

class Resolver {
  constructor(private readonly definitions: Map<string, CssNode[][]>) {}

  /** The name and the fallback tokens of a var() function. */
  private reference(node: csstree.FunctionNode): { name: string | null; fallback: CssNode[] | null } {
    const args = node.children.toArray().filter((child) => child.type !== "WhiteSpace");
    const first = args[0];
    const name = first?.type === "Identifier" && first.name.startsWith("--") ? first.name : null;
    const comma = args.findIndex((child) => child.type === "Operator" && child.value === ",");
    if (comma < 0) return { name, fallback: null };
    const rest = args.slice(comma + 1);
    const fallback = rest.length === 1 && rest[0]?.type === "Raw" ? parseValue(rest[0].value) : rest;
    return { name, fallback };
  }

  /** What a var() may stand for: each definition of its property, else its fallback, else nothing. */
  private substitutes(node: csstree.FunctionNode, seen: ReadonlySet<string>): CssNode[][] {
    const { name, fallback } = this.reference(node);
    if (name && seen.has(name)) return [];
    const defined = name ? this.definitions.get(name) : undefined;
    if (defined && defined.length > 0) return defined;
    return fallback ? [fallback] : [];
  }

  /** The readings of a value with its top-level var()s substituted (at most MAX_ALTERNATIVES). */
  expand(tokens: readonly CssNode[], depth = 0, seen: ReadonlySet<string> = new Set()): CssNode[][] {
    let readings: CssNode[][] = [[]];
    for (const token of tokens) {
      let options: CssNode[][] = [[token]];
      if (token.type === "Function" && token.name.toLowerCase() === "var") {
        if (depth >= MAX_DEPTH) return [];
        const { name } = this.reference(token);
        const inner = name ? new Set([...seen, name]) : seen;
        options = this.substitutes(token, seen).flatMap((substitute) => this.expand(substitute, depth + 1, inner));
        if (options.length === 0) return [];
      }
      readings = readings.flatMap((reading) => options.map((option) => [...reading, ...option]));
      readings = readings.slice(0, MAX_ALTERNATIVES);
    }
    return readings;
  }

  /**
   * Every color a value uses, var()s resolved. `names`: whether a bare identifier may be a named color (in a custom
   * property's definition only when it is the whole value).
   */
  colors(tokens: readonly CssNode[], names: boolean, depth: number, seen: ReadonlySet<string>): Set<string> {
    const found = new Set<string>();
    const add = (color: string | null) => {
      if (color) found.add(color);
    };
    for (const token of tokens) {
      if (token.type === "Hash") add(hexColor(token.value));
      else if (token.type === "Identifier" && names) add(namedColor(token.name));
      else if (token.type === "Function") {
        const name = token.name.toLowerCase();
        if (name === "var") {
          if (depth >= MAX_DEPTH) continue;
          const { name: property } = this.reference(token);
          const inner = property ? new Set([...seen, property]) : seen;
          for (const substitute of this.substitutes(token, seen)) {
            const whole = names || substitute.length === 1;
            for (const color of this.colors(substitute, whole, depth + 1, inner)) found.add(color);
          }
        } else if (COLOR_FUNCTIONS.has(name)) {
          for (const args of this.expand(token.children.toArray(), depth, seen)) add(functionColor(name, args));
        } else {
          for (const color of this.colors(token.children.toArray(), names, depth, seen)) found.add(color);
        }
      } else if (token.type === "Parentheses") {
        for (const color of this.colors(token.children.toArray(), names, depth, seen)) found.add(color);
      }
    }
    return found;
  }
}

/** `"Inter", Segoe UI, sans-serif`: each family by slug, with its name as written. */
function familyList(tokens: readonly CssNode[]): Map<string, string> {
  const families = new Map<string, string>();
  let segment: CssNode[] = [];
  const close = () => {
    const parts = segment.filter((node) => node.type !== "WhiteSpace");
    segment = [];
    let label: string | null = null;
    if (parts.length === 1 && parts[0]?.type === "String") label = parts[0].value.trim();
    else if (parts.length > 0 && parts.every((node) => node.type === "Identifier")) {
      label = parts.map((node) => (node.type === "Identifier" ? node.name : "")).join(" ");
    }
    if (!label) return;
    const slug = label.toLowerCase().replace(/\s+/g, " ");
    if (parts[0]?.type === "Identifier" && parts.length === 1 && WIDE_KEYWORDS.has(slug)) return;
    if (!families.has(slug)) families.set(slug, label);
  };
  for (const token of tokens) {
    if (token.type === "Operator" && token.value === ",") close();
    else segment.push(token);
  }
  close();
  return families;
}

/** The families of a `font` shorthand: what follows its size (and `/ line-height`). */
function shorthandFamilies(tokens: readonly CssNode[]): Map<string, string> {
  const parts = tokens.filter((node) => node.type !== "WhiteSpace");
  const only = parts.length === 1 && parts[0]?.type === "Identifier" ? parts[0].name.toLowerCase() : null;
  if (only && (SYSTEM_FONTS.has(only) || WIDE_KEYWORDS.has(only))) return new Map();
  const size = parts.findIndex(
    (node) =>
      node.type === "Dimension" ||
      node.type === "Percentage" ||
      (node.type === "Number" && Number(node.value) === 0) ||
      (node.type === "Identifier" && SIZE_KEYWORDS.has(node.name.toLowerCase())) ||
      (node.type === "Function" && ["calc", "clamp", "min", "max"].includes(node.name.toLowerCase())),
  );
  if (size < 0) return new Map();
  let start = size + 1;
  const next = parts[start];
  if (next?.type === "Operator" && next.value === "/") start += 2;
  return familyList(parts.slice(start));
}
