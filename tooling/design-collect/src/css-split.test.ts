import { type CssNode, generate, parse, walk } from "css-tree";
import { describe, expect, it } from "vitest";
import { ASSET_LIMIT, splitCss } from "./css-split";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** Parses strictly: every error css-tree reports (it recovers from them) fails the test. */
function parseStrict(css: string): CssNode {
  const errors: string[] = [];
  const ast = parse(css, { onParseError: (error) => errors.push(error.message) });
  expect(errors, css.slice(0, 200)).toEqual([]);
  return ast;
}

/** Every declaration with the selectors and conditions around it, in order: what the cascade sees. */
function declarations(css: string): string[] {
  const out: string[] = [];
  const ast = parseStrict(css);
  walk(ast, {
    visit: "Declaration",
    enter(node) {
      const context = this.atrule
        ? `@${this.atrule.name} ${this.atrule.prelude ? generate(this.atrule.prelude) : ""}`
        : "";
      out.push(`${context} ${this.rule ? generate(this.rule.prelude) : ""} { ${generate(node)} }`);
    },
  });
  return out;
}

function expectParts(parts: string[], limit: number) {
  expect(parts.length).toBeGreaterThan(1);
  for (const part of parts) {
    expect(bytes(part)).toBeLessThanOrEqual(limit);
    parseStrict(part);
  }
}

const rules = (count: number, prefix = "item") =>
  Array.from(
    { length: count },
    (_, index) =>
      `.${prefix}-${index} { color: #${(index % 4096).toString(16).padStart(3, "0")}; margin: ${index}px; }`,
  ).join("\n");

describe("splitCss", () => {
  it("leaves a stylesheet within the limit exactly as served, comments and all", () => {
    const css = "/* brand */\n:root { --brand: #0a7; }\nbody { font-family: system-ui; }\n";
    expect(splitCss(css)).toEqual({ parts: [css], skipped: [] });
  });

  it("splits a large stylesheet at rule boundaries into valid parts within the limit, every rule kept in order", () => {
    const css = rules(600);
    expect(bytes(css)).toBeGreaterThan(ASSET_LIMIT * 2);
    const { parts, skipped } = splitCss(css);
    expectParts(parts, ASSET_LIMIT);
    expect(skipped).toEqual([]);
    expect(declarations(parts.join("\n"))).toEqual(declarations(css));
    // Each part is the source's own text of whole rules.
    for (const part of parts) expect(css).toContain(part.split("\n")[0]);
  });

  it("splits one @media block too large for a part into several blocks with the same condition", () => {
    const css = `body { margin: 0; }\n@media (min-width: 40rem) and (prefers-color-scheme: dark) {\n${rules(300)}\n}\n.after { color: red; }`;
    const { parts } = splitCss(css, 4000);
    expectParts(parts, 4000);
    expect(declarations(parts.join("\n"))).toEqual(declarations(css));
    const media = parts.join("\n").match(/@media \(min-width: 40rem\) and \(prefers-color-scheme: dark\) \{/g) ?? [];
    expect(media.length).toBeGreaterThan(1);
  });

  it("splits one huge style rule by its declarations, nested rules and at-rules included", () => {
    const longRule = `.card { ${Array.from({ length: 400 }, (_, index) => `--token-${index}: ${index}px`).join("; ")}; & .title { font-weight: 700; } @media (width > 30rem) { padding: 2rem; } }`;
    const { parts, skipped } = splitCss(longRule, 2000);
    expectParts(parts, 2000);
    expect(skipped).toEqual([]);
    expect(declarations(parts.join("\n"))).toEqual(declarations(longRule));
    for (const part of parts) expect(part.startsWith(".card {")).toBe(true);
  });

  it("leaves out what cannot be split without changing its meaning, and says so", () => {
    const font = `@font-face { font-family: Big; src: url(data:font/woff2;base64,${"A".repeat(5000)}); }`;
    const frames = `@keyframes spin { ${Array.from({ length: 200 }, (_, index) => `${(index / 2).toFixed(1)}% { transform: rotate(${index}deg); }`).join(" ")} }`;
    const declaration = `.x { background: url(data:image/png;base64,${"B".repeat(5000)}); color: red; }`;
    const css = `${rules(10)}\n${font}\n${frames}\n${declaration}\n.last { color: blue; }`;
    const { parts, skipped } = splitCss(css, 3000);
    for (const part of parts) {
      expect(bytes(part)).toBeLessThanOrEqual(3000);
      parseStrict(part);
    }
    expect(skipped).toEqual([
      expect.stringMatching(/^an @font-face rule of \d+ bytes cannot be split$/),
      expect.stringMatching(/^an @keyframes rule of \d+ bytes cannot be split$/),
      expect.stringMatching(/^a declaration of \d+ bytes in a style rule cannot be split$/),
    ]);
    const joined = parts.join("\n");
    expect(joined).toContain(".last { color: blue; }");
    expect(joined).toContain(".x {color: red;}");
    expect(joined).not.toContain("@font-face");
  });

  it("counts bytes: a stylesheet of Korean text splits by its UTF-8 size", () => {
    const css = Array.from(
      { length: 300 },
      (_, index) => `.note-${index}::before { content: "라이브러리 ${index}"; }`,
    ).join("\n");
    expect(css.length).toBeLessThan(ASSET_LIMIT * 1.5);
    expect(bytes(css)).toBeGreaterThan(ASSET_LIMIT);
    const { parts } = splitCss(css);
    expectParts(parts, ASSET_LIMIT);
    expect(declarations(parts.join("\n"))).toEqual(declarations(css));
  });

  it("keeps @charset and @import at the top of the first part", () => {
    const css = `@charset "utf-8";\n@import url("base.css");\n${rules(600)}`;
    const { parts } = splitCss(css);
    expect(parts[0]?.startsWith('@charset "utf-8";\n@import url("base.css");')).toBe(true);
    expect(parts.slice(1).some((part) => part.includes("@import"))).toBe(false);
  });

  it("holds for many limits: every part within its limit, valid, nothing lost", () => {
    const css = `${rules(80, "a")}\n@supports (display: grid) { ${rules(60, "b")} @media print { ${rules(40, "c")} } }\n${rules(30, "d")}`;
    const expected = declarations(css);
    for (let limit = 300; limit <= 6000; limit += 577) {
      const { parts, skipped } = splitCss(css, limit);
      expect(skipped).toEqual([]);
      expectParts(parts, limit);
      expect(declarations(parts.join("\n"))).toEqual(expected);
    }
  });
});
