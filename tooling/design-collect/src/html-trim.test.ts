import { parse, serialize } from "parse5";
import { describe, expect, it } from "vitest";
import { HTML_LIMIT, trimHtml } from "./html-trim";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
/** Well formed: the HTML standard's parser reads it back into the very same markup. */
const wellFormed = (html: string) => serialize(parse(html)) === html;

function page(body: string, head = "<title>Library · Shelf</title>"): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

describe("trimHtml", () => {
  it("drops scripts, styles, comments, SVG bodies, hidden inputs, data, style, handler and field value attributes", () => {
    const out = trimHtml(
      page(
        `<!-- note --><script>alert(1)</script><style>p{}</style><noscript>x</noscript><template><p>t</p></template>
         <link rel="stylesheet" href="/a.css"><main id="main" class="page" data-testid="m" style="color:red" onclick="x()">
         <svg viewBox="0 0 10 10" aria-hidden="true" class="icon"><path d="M0 0L10 10"/></svg>
         <form method="post"><input type="hidden" name="$ACTION" value="secret-action"><input type="text" name="key" value="shelf_secret" aria-label="Key">
         <input type="submit" value="Create key"><button type="submit" data-state="idle">Go</button></form></main>`,
        '<title>T</title><meta name="viewport" content="width=device-width"><script src="/x.js"></script>',
      ),
    );
    expect(out).toBe(
      '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>T</title></head><body> ' +
        '<main id="main" class="page"> <svg viewBox="0 0 10 10" aria-hidden="true" class="icon"></svg> ' +
        '<form method="post"><input type="text" name="key" aria-label="Key"> <input type="submit" value="Create key">' +
        '<button type="submit">Go</button></form></main></body></html>',
    );
    expect(wellFormed(out)).toBe(true);
  });

  it("keeps structure, text, classes, ids, roles, aria and links, and drops script and oversized addresses", () => {
    const longHref = `/go?${"q".repeat(400)}`;
    const out = trimHtml(
      page(
        `<nav aria-label="Main" role="navigation"><a href="/account" aria-current="page">Library</a>` +
          `<a href="javascript:alert(1)">Bad</a><a href="${longHref}">Long</a></nav>`,
      ),
    );
    expect(out).toContain(
      '<nav aria-label="Main" role="navigation"><a href="/account" aria-current="page">Library</a>',
    );
    expect(out).toContain("<a>Bad</a><a>Long</a>");
  });

  it("collapses whitespace except inside pre, and joins text split by a dropped node", () => {
    const out = trimHtml(
      page("<p>one   two\n\n three</p><pre><code>a\n  b</code></pre><p>left<script>x</script>  right</p>"),
    );
    expect(out).toContain("<p>one two three</p><pre><code>a\n  b</code></pre><p>left right</p>");
  });

  it("cuts a very long text with an ellipsis, never inside a surrogate pair", () => {
    const out = trimHtml(page(`<p>${"😀".repeat(1000)}</p>`));
    const text = /<p>(.*)<\/p>/.exec(out)?.[1] as string;
    expect(Array.from(text)).toHaveLength(600);
    expect(text.endsWith("…")).toBe(true);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it("leaves a small page whole, and trimming again changes nothing", () => {
    const out = trimHtml(page("<main><h1>Library</h1><p>Nothing yet.</p></main>"));
    expect(out).toBe(page("<main><h1>Library</h1><p>Nothing yet.</p></main>"));
    expect(trimHtml(out)).toBe(out);
  });

  it("fits a large page in the limit by cutting the last and deepest nodes, keeping the top", () => {
    const rows = Array.from(
      { length: 400 },
      (_, index) => `<tr class="row"><td>Product ${index}</td><td><a href="/p/${index}">Open</a></td></tr>`,
    ).join("");
    const source = page(
      `<header class="site-header"><a href="/">Shelf</a></header><main><h1>Your library</h1>` +
        `<table><thead><tr><th>Name</th><th></th></tr></thead><tbody>${rows}</tbody></table></main><footer>End</footer>`,
    );
    expect(bytes(source)).toBeGreaterThan(HTML_LIMIT * 2);
    const out = trimHtml(source);
    expect(bytes(out)).toBeLessThanOrEqual(HTML_LIMIT);
    expect(bytes(out)).toBeGreaterThan(HTML_LIMIT - 200);
    expect(wellFormed(out)).toBe(true);
    expect(out).toContain("<title>Library · Shelf</title>");
    expect(out).toContain('<header class="site-header"><a href="/">Shelf</a></header><main><h1>Your library</h1>');
    expect(out).toContain("Product 0<");
    expect(out).not.toContain("Product 399");
    expect(out).not.toContain("<footer>");
  });

  it("counts bytes, not characters: Korean text fits in bytes", () => {
    const items = Array.from({ length: 600 }, (_, index) => `<li>라이브러리 항목 ${index}</li>`).join("");
    const out = trimHtml(page(`<ul>${items}</ul>`), 4000);
    expect(bytes(out)).toBeLessThanOrEqual(4000);
    expect(out.length).toBeLessThan(4000);
    expect(wellFormed(out)).toBe(true);
  });

  it("makes any limit exactly: the limit itself passes, one byte less cuts", () => {
    const source = page(`<main>${"<p>word</p>".repeat(50)}</main>`);
    const size = bytes(trimHtml(source));
    expect(trimHtml(source, size)).toBe(trimHtml(source));
    const cut = trimHtml(source, size - 1);
    expect(bytes(cut)).toBeLessThanOrEqual(size - 1);
    expect(cut).not.toBe(trimHtml(source));
    expect(wellFormed(cut)).toBe(true);
  });

  it("gives well-formed output for broken markup and for a fragment", () => {
    for (const source of [
      "<div><p>open<span>never closed",
      "</div></div><table>stray text<tr><td>cell</table><b><i>crossed</b></i>",
      "<p>only a fragment</p>",
      "",
    ]) {
      const out = trimHtml(source, 300);
      expect(out.startsWith("<html>") || out.startsWith("<!DOCTYPE html>")).toBe(true);
      expect(bytes(out)).toBeLessThanOrEqual(300);
      expect(wellFormed(out)).toBe(true);
    }
  });

  it("drops the head too when even an empty body is over the limit, and refuses a limit no document fits", () => {
    const source = page("<p>text</p>", `<title>${"T".repeat(500)}</title>`);
    const out = trimHtml(source, 120);
    expect(bytes(out)).toBeLessThanOrEqual(120);
    expect(wellFormed(out)).toBe(true);
    expect(trimHtml(source, 60)).toBe("<!DOCTYPE html><html><head></head><body></body></html>");
    expect(() => trimHtml(source, 10)).toThrow(RangeError);
  });
});
