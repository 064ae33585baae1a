import { eastAsianWidth } from "get-east-asian-width";

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/** Columns a string takes on a terminal: a wide character (Korean, Chinese, Japanese) takes two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes.segment(text)) {
    const codePoint = segment.codePointAt(0) ?? 0;
    width += codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0) ? 0 : eastAsianWidth(codePoint);
  }
  return width;
}

/** `text` cut to at most `width` columns, ending in an ellipsis when something was cut. */
function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = "";
  for (const { segment } of graphemes.segment(text)) {
    if (displayWidth(`${kept}${segment}…`) > width) break;
    kept += segment;
  }
  return `${kept}…`;
}

const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - displayWidth(text)));

/**
 * Columns padded to their widest cell as a terminal shows it. With `columns` (the terminal's width), the `shrink`
 * column gives up what the table lacks, its cells cut with an ellipsis, so no row wraps.
 */
export function table(rows: string[][], fit: { columns?: number; shrink?: number } = {}): string {
  const count = rows[0]?.length ?? 0;
  const widths = Array.from({ length: count }, (_, column) =>
    Math.max(...rows.map((row) => displayWidth(row[column] ?? ""))),
  );
  const shrink = fit.shrink;
  if (fit.columns && shrink !== undefined && widths[shrink] !== undefined) {
    const total = widths.reduce((sum, width) => sum + width, 0) + 2 * (count - 1);
    const over = total - fit.columns;
    if (over > 0) widths[shrink] = Math.max(4, (widths[shrink] as number) - over);
  }
  return rows
    .map((row) =>
      row
        .map((cell, column) => {
          const width = widths[column] ?? 0;
          return pad(column === shrink ? truncate(cell, width) : cell, width);
        })
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
