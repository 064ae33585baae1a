import { type Atrule, type CssNode, parse, type Rule } from "css-tree";

/** The contract's limit of one collect asset's bytes. */
export const ASSET_LIMIT = 10_240;

/** At-rules whose block is a list of rules (or declarations) that may be split into several blocks of the same rule. */
const SPLITTABLE_AT_RULES = new Set(["media", "supports", "layer", "container", "scope", "document", "starting-style"]);

export type CssSplit = {
  /** Each part valid CSS of at most `limit` bytes, in the source's order. */
  parts: string[];
  /** What could not be made to fit (a single `@font-face` or `@keyframes` over the limit), with why. */
  skipped: string[];
};

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * Splits a stylesheet into parts of at most `limit` bytes at rule boundaries, with css-tree's parser: top-level rules
 * go whole into a part, in order; a rule too large for one part is split by its block's children into several rules
 * with the same selector or condition (`@media x {a{}} ` and `@media x {b{}}`), recursively. Each part is the
 * source's own text of its rules, so what fits in one file is sent exactly as served. What cannot be split without
 * changing its meaning (a huge `@font-face`, `@keyframes` or declaration) is left out and named in `skipped`.
 */
export function splitCss(source: string, limit = ASSET_LIMIT): CssSplit {
  if (bytes(source) <= limit) return { parts: [source], skipped: [] };
  const sheet = parse(source, { positions: true });
  if (sheet.type !== "StyleSheet") return { parts: [], skipped: ["not a stylesheet"] };
  const skipped: string[] = [];
  const pieces: string[] = [];
  for (const node of sheet.children) pieces.push(...piecesOf(source, node, limit, skipped));
  return { parts: pack(pieces, limit, "\n"), skipped };
}

function text(source: string, node: CssNode): string {
  const loc = node.loc;
  if (!loc) throw new Error(`css-tree gave no position for a ${node.type}`);
  return source.slice(loc.start.offset, loc.end.offset);
}

/** One node's text in pieces of at most `limit` bytes each (one piece when it fits). */
function piecesOf(source: string, node: CssNode, limit: number, skipped: string[]): string[] {
  const whole = text(source, node);
  if (bytes(whole) <= limit) return [whole];
  if (!isSplittable(node)) {
    skipped.push(`${describe(node)} of ${bytes(whole)} bytes cannot be split`);
    return [];
  }
  const block = node.block;
  const blockStart = block.loc?.start.offset;
  if (blockStart === undefined || !node.loc) throw new Error("css-tree gave no position for a block");
  const head = source.slice(node.loc.start.offset, blockStart);
  const budget = limit - bytes(`${head}{}`);
  if (budget <= 0) {
    skipped.push(`${describe(node)} has a prelude longer than the limit`);
    return [];
  }
  const inner: string[] = [];
  for (const child of block.children) {
    if (child.type === "Declaration" || child.type === "Raw") {
      const declaration = `${text(source, child)};`;
      if (bytes(declaration) <= budget) inner.push(declaration);
      else skipped.push(`a declaration of ${bytes(declaration)} bytes in ${describe(node)} cannot be split`);
    } else {
      inner.push(...piecesOf(source, child, budget, skipped));
    }
  }
  return pack(inner, budget, "").map((group) => `${head}{${group}}`);
}

function isSplittable(node: CssNode): node is (Rule | Atrule) & { block: NonNullable<Rule["block"]> } {
  if (node.type === "Rule") return true;
  return node.type === "Atrule" && node.block !== null && SPLITTABLE_AT_RULES.has(node.name.toLowerCase());
}

function describe(node: CssNode): string {
  if (node.type === "Atrule") return `an @${node.name} rule`;
  if (node.type === "Rule") return "a style rule";
  return `a ${node.type}`;
}

/** Packs pieces in order into groups of at most `limit` bytes (joined by `separator`); each piece already fits. */
function pack(pieces: string[], limit: number, separator: string): string[] {
  const groups: string[] = [];
  let current = "";
  for (const piece of pieces) {
    const joined = current === "" ? piece : `${current}${separator}${piece}`;
    if (bytes(joined) <= limit) {
      current = joined;
    } else {
      if (current !== "") groups.push(current);
      current = piece;
    }
  }
  if (current !== "") groups.push(current);
  return groups;
}
