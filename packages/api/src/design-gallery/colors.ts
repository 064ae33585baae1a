import colorNames from "color-name";
import type { CssNode } from "css-tree";

/*
 * CSS color values as the gallery keeps them: `#rrggbb`, or `#rrggbbaa` when not opaque. Read: hex (3, 4, 6 or 8
 * digits), the named colors, rgb()/rgba(), hsl()/hsla(), hwb(), oklab() and oklch() (converted to sRGB, clipped to
 * its gamut), in the legacy comma syntax and the space syntax with `/ alpha`. Not read: lab(), lch(), color(),
 * color-mix(), relative colors, system colors, `currentcolor`, and fully transparent colors (`transparent` included):
 * they are not a palette's colors, or cannot be told without the page.
 */

type Rgba = { r: number; g: number; b: number; a: number };

const NAMED = new Map<string, readonly number[]>(Object.entries(colorNames));

/** The gallery's form of a named color (`rebeccapurple`), or null when the identifier is not one. */
export function namedColor(name: string): string | null {
  const rgb = NAMED.get(name.toLowerCase());
  return rgb ? format({ r: rgb[0] ?? 0, g: rgb[1] ?? 0, b: rgb[2] ?? 0, a: 1 }) : null;
}

/** The gallery's form of a hash token's digits (`fff`, `1f5fd680`), or null when they are not a color. */
export function hexColor(digits: string): string | null {
  if (!/^(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(digits)) return null;
  const full = digits.length <= 4 ? [...digits].map((digit) => digit + digit).join("") : digits;
  const channel = (at: number) => Number.parseInt(full.slice(at, at + 2), 16);
  return format({ r: channel(0), g: channel(2), b: channel(4), a: full.length === 8 ? channel(6) / 255 : 1 });
}

export const COLOR_FUNCTIONS = new Set(["rgb", "rgba", "hsl", "hsla", "hwb", "oklab", "oklch"]);

/** A color function's value from its argument tokens (var() already substituted), or null when it is not one. */
export function functionColor(name: string, args: readonly CssNode[]): string | null {
  const parts = splitArguments(args);
  if (!parts) return null;
  const { channels, alpha } = parts;
  if (channels.length !== 3) return null;
  const a = alpha === undefined ? 1 : unitInterval(alpha, 1);
  if (a === null) return null;
  const [first, second, third] = channels as [CssNode, CssNode, CssNode];
  switch (name.toLowerCase()) {
    case "rgb":
    case "rgba": {
      const r = byteChannel(first);
      const g = byteChannel(second);
      const b = byteChannel(third);
      return r === null || g === null || b === null ? null : format({ r, g, b, a });
    }
    case "hsl":
    case "hsla": {
      const h = hue(first);
      const s = percent(second);
      const l = percent(third);
      return h === null || s === null || l === null ? null : format({ ...hslToRgb(h, s, l), a });
    }
    case "hwb": {
      const h = hue(first);
      const w = percent(second);
      const b = percent(third);
      return h === null || w === null || b === null ? null : format({ ...hwbToRgb(h, w, b), a });
    }
    case "oklab": {
      const l = unitInterval(first, 1);
      const ca = scaled(second, 0.4);
      const cb = scaled(third, 0.4);
      return l === null || ca === null || cb === null ? null : format({ ...oklabToRgb(l, ca, cb), a });
    }
    case "oklch": {
      const l = unitInterval(first, 1);
      const c = scaled(second, 0.4);
      const h = hue(third);
      if (l === null || c === null || h === null) return null;
      const radians = (h * Math.PI) / 180;
      return format({ ...oklabToRgb(l, c * Math.cos(radians), c * Math.sin(radians)), a });
    }
    default:
      return null;
  }
}

/** `r g b / a` or `r, g, b, a`: the three channels and the alpha, or null for anything else. */
function splitArguments(args: readonly CssNode[]): { channels: CssNode[]; alpha?: CssNode } | null {
  const tokens = args.filter((node) => node.type !== "WhiteSpace");
  const commas = tokens.filter((node) => node.type === "Operator" && node.value === ",").length;
  const values = tokens.filter((node) => node.type !== "Operator");
  const slash = tokens.findIndex((node) => node.type === "Operator" && node.value === "/");
  if (commas > 0) {
    if (slash >= 0 || (commas !== 2 && commas !== 3) || values.length !== commas + 1) return null;
    return { channels: values.slice(0, 3), alpha: values[3] };
  }
  if (slash >= 0) {
    const before = tokens.slice(0, slash);
    const after = tokens.slice(slash + 1);
    if (after.length !== 1) return null;
    return { channels: before, alpha: after[0] };
  }
  return { channels: values };
}

const numberOf = (node: CssNode) => (node.type === "Number" ? Number(node.value) : null);

/** 0..255 from a number or a percentage; `none` is 0. */
function byteChannel(node: CssNode): number | null {
  if (node.type === "Identifier" && node.name.toLowerCase() === "none") return 0;
  if (node.type === "Percentage") return clamp((Number(node.value) / 100) * 255, 0, 255);
  const value = numberOf(node);
  return value === null || Number.isNaN(value) ? null : clamp(value, 0, 255);
}

/** 0..1 from a number (taken as is, `max` being 1) or a percentage. */
function unitInterval(node: CssNode, max: number): number | null {
  if (node.type === "Identifier" && node.name.toLowerCase() === "none") return 0;
  if (node.type === "Percentage") return clamp(Number(node.value) / 100, 0, 1) * max;
  const value = numberOf(node);
  return value === null || Number.isNaN(value) ? null : clamp(value, 0, max);
}

/** A number, or a percentage of `full` (oklab's a and b, oklch's chroma: 100% is 0.4). */
function scaled(node: CssNode, full: number): number | null {
  if (node.type === "Identifier" && node.name.toLowerCase() === "none") return 0;
  if (node.type === "Percentage") return (Number(node.value) / 100) * full;
  const value = numberOf(node);
  return value === null || Number.isNaN(value) ? null : value;
}

/** 0..1 from a percentage, or a number meaning percent (the space syntax allows both). */
function percent(node: CssNode): number | null {
  if (node.type === "Identifier" && node.name.toLowerCase() === "none") return 0;
  if (node.type === "Percentage" || node.type === "Number") {
    const value = Number(node.value);
    return Number.isNaN(value) ? null : clamp(value / 100, 0, 1);
  }
  return null;
}

const TURN: Record<string, number> = { deg: 360, grad: 400, rad: 2 * Math.PI, turn: 1 };

/** Degrees from a number or an angle. */
function hue(node: CssNode): number | null {
  if (node.type === "Identifier" && node.name.toLowerCase() === "none") return 0;
  if (node.type === "Number") return Number(node.value);
  if (node.type === "Dimension") {
    const turn = TURN[node.unit.toLowerCase()];
    return turn === undefined ? null : (Number(node.value) / turn) * 360;
  }
  return null;
}

function hslToRgb(h: number, s: number, l: number) {
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const a = s * Math.min(l, 1 - l);
    return (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255;
  };
  return { r: f(0), g: f(8), b: f(4) };
}

function hwbToRgb(h: number, white: number, black: number) {
  if (white + black >= 1) {
    const gray = (white / (white + black)) * 255;
    return { r: gray, g: gray, b: gray };
  }
  const { r, g, b } = hslToRgb(h, 1, 0.5);
  const scale = (channel: number) => (channel / 255) * (1 - white - black) * 255 + white * 255;
  return { r: scale(r), g: scale(g), b: scale(b) };
}

function oklabToRgb(l: number, a: number, b: number) {
  const lms = [
    (l + 0.3963377774 * a + 0.2158037573 * b) ** 3,
    (l - 0.1055613458 * a - 0.0638541728 * b) ** 3,
    (l - 0.0894841775 * a - 1.291485548 * b) ** 3,
  ] as const;
  const [L, M, S] = lms;
  const gamma = (linear: number) => {
    const c = clamp(linear, 0, 1);
    return (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055) * 255;
  };
  return {
    r: gamma(4.0767416621 * L - 3.3077115913 * M + 0.2309699292 * S),
    g: gamma(-1.2684380046 * L + 2.6097574011 * M - 0.3413193965 * S),
    b: gamma(-0.0041960863 * L - 0.7034186147 * M + 1.707614701 * S),
  };
}

function clamp(value: number, min: number, max: number) {
  return Math.min(max, Math.max(min, value));
}

/** `#rrggbb`, `#rrggbbaa` when not opaque; null when fully transparent (not a palette color). */
function format({ r, g, b, a }: Rgba): string | null {
  const alpha = Math.round(clamp(a, 0, 1) * 255);
  if (alpha === 0) return null;
  const hex = (channel: number) =>
    Math.round(clamp(channel, 0, 255))
      .toString(16)
      .padStart(2, "0");
  return `#${hex(r)}${hex(g)}${hex(b)}${alpha === 255 ? "" : hex(alpha)}`;
}
