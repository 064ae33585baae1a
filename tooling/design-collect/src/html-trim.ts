import { type DefaultTreeAdapterTypes as Html, html as htmlSpec, parse, serialize } from "parse5";

/** The contract's limit of a capture's HTML, in bytes. */
export const HTML_LIMIT = 10_240;

/** Elements dropped with everything in them: nothing of the page's structure or text a designer reads. */
const DROPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "link",
  "base",
  "object",
  "embed",
  "source",
  "track",
  "iframe",
]);

/** Attributes kept: what says what an element is, not how a script drives it. */
const KEPT_ATTRIBUTES = new Set([
  "class",
  "id",
  "role",
  "href",
  "lang",
  "dir",
  "type",
  "name",
  "for",
  "alt",
  "title",
  "placeholder",
  "method",
  "colspan",
  "rowspan",
  "scope",
  "headers",
  "disabled",
  "required",
  "readonly",
  "checked",
  "selected",
  "multiple",
  "open",
  "hidden",
  "tabindex",
  "width",
  "height",
  "viewBox",
  "charset",
]);

const EMPTY_DOCUMENT = "<!DOCTYPE html><html><head></head><body></body></html>";

/** Text longer than this in one node is cut: a page's structure matters more than one long paragraph. */
const MAX_TEXT = 600;
/** An `href` longer than this is dropped (signed or tracking addresses say nothing of the page). */
const MAX_HREF = 300;

type ParentNode = Html.ParentNode;
type ChildNode = Html.ChildNode;

/**
 * A page's HTML made small enough for a capture (at most `limit` bytes of UTF-8), as a well-formed document parsed
 * and serialized by parse5 (the HTML standard's parser): scripts, styles, comments, the insides of inline SVGs,
 * `data-*`, `style`, event handler and value attributes dropped, whitespace collapsed, long text cut; the structure,
 * text, classes, ids, roles, `aria-*` and links kept. Still too large, it keeps the longest prefix of the body (in
 * document order) that fits: the deepest and last nodes go first, the page's top stays, as on its thumbnail.
 */
export function trimHtml(source: string, limit = HTML_LIMIT): string {
  const document = parse(source);
  clean(document);
  let out = serialize(document);
  if (bytes(out) <= limit) return out;

  const body = find(document, "body");
  const nodes = body ? preOrder(body) : [];
  const original = new Map<ParentNode, ChildNode[]>();
  for (const node of [body, ...nodes]) {
    if (node && "childNodes" in node) original.set(node, [...node.childNodes]);
  }
  const index = new Map<ChildNode, number>(nodes.map((node, position) => [node, position]));
  const keepFirst = (count: number) => {
    for (const [parent, children] of original) {
      parent.childNodes = children.filter((child) => (index.get(child) ?? 0) < count);
    }
    return serialize(document);
  };

  // The size grows with each node kept: the longest prefix that fits, by bisection.
  let low = 0;
  let high = nodes.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (bytes(keepFirst(middle)) <= limit) low = middle;
    else high = middle - 1;
  }
  out = keepFirst(low);
  if (bytes(out) <= limit) return out;

  // Even an empty body is too large: the head goes too (its title last).
  const head = find(document, "head");
  if (head) {
    head.childNodes = head.childNodes.filter((node) => isElement(node) && node.tagName === "title");
    for (const title of head.childNodes) {
      if (isElement(title)) title.childNodes = [];
    }
    out = serialize(document);
  }
  if (bytes(out) <= limit) return out;
  if (bytes(EMPTY_DOCUMENT) <= limit) return EMPTY_DOCUMENT;
  throw new RangeError(`no HTML document fits in ${limit} bytes`);
}

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function isElement(node: Html.Node): node is Html.Element {
  return "tagName" in node;
}

function find(parent: ParentNode, tagName: string): Html.Element | null {
  for (const child of parent.childNodes) {
    if (!isElement(child)) continue;
    if (child.tagName === tagName) return child;
    const found = find(child, tagName);
    if (found) return found;
  }
  return null;
}

function preOrder(parent: ParentNode): ChildNode[] {
  const out: ChildNode[] = [];
  for (const child of parent.childNodes) {
    out.push(child);
    if (isElement(child)) out.push(...preOrder(child));
  }
  return out;
}

function clean(parent: ParentNode, inPre = false): void {
  const kept: ChildNode[] = [];
  const preformatted =
    inPre || (isElement(parent as Html.Node) && ["pre", "textarea"].includes((parent as Html.Element).tagName));
  const inFlow = !isElement(parent as Html.Node) || !["html", "head"].includes((parent as Html.Element).tagName);
  for (const child of parent.childNodes) {
    if (child.nodeName === "#comment") continue;
    if (child.nodeName === "#documentType") {
      kept.push(child);
      continue;
    }
    if (child.nodeName === "#text") {
      const text = child as Html.TextNode;
      // Text that met across a dropped node is one text.
      const previous = kept.at(-1);
      if (previous?.nodeName === "#text") {
        (previous as Html.TextNode).value += text.value;
        kept.pop();
        text.value = (previous as Html.TextNode).value;
      }
      if (!preformatted) text.value = text.value.replace(/\s+/g, " ");
      if (text.value.trim() === "" && (!inFlow || text.value === "")) continue;
      text.value = cut(text.value, MAX_TEXT);
      kept.push(text);
      continue;
    }
    if (!isElement(child)) continue;
    if (DROPPED.has(child.tagName)) continue;
    if (child.tagName === "input" && child.attrs.some((a) => a.name === "type" && a.value.toLowerCase() === "hidden")) {
      continue;
    }
    if (child.tagName === "meta" && !child.attrs.some((attribute) => attribute.name === "charset")) continue;
    child.attrs = child.attrs.filter((attribute) => keepAttribute(child, attribute.name, attribute.value));
    if (child.namespaceURI === htmlSpec.NS.SVG || child.namespaceURI === htmlSpec.NS.MATHML) {
      child.childNodes = [];
    } else {
      clean(child, preformatted);
    }
    kept.push(child);
  }
  parent.childNodes = kept;
}

function keepAttribute(element: Html.Element, name: string, value: string): boolean {
  if (name.startsWith("aria-")) return true;
  if (name === "value") {
    // A button's label, never what a field holds (a key shown once, a typed password).
    const type = element.attrs.find((attribute) => attribute.name === "type")?.value.toLowerCase();
    return element.tagName === "input" && (type === "submit" || type === "button" || type === "reset");
  }
  if (name === "href") return value.length <= MAX_HREF && !/^\s*(javascript|data|vbscript):/i.test(value);
  return KEPT_ATTRIBUTES.has(name);
}

/** At most `max` characters, never splitting a surrogate pair, marked with an ellipsis when cut. */
function cut(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join("")}…`;
}
