import { type DefaultTreeAdapterTypes as Html, parse } from "parse5";

/*
 * What the gallery's `q` filter searches, and how it finds it fast in Korean as well as in English.
 *
 * A screen's searchable text is a set of words: its app's name, its page, its variants' titles and visible text
 * (from the captured HTML), and its meta terms. Words are runs of letters, marks and digits after NFKC and
 * lowercasing, done here in JavaScript so that the database's locale plays no part: the embedded PostgreSQL runs in
 * the C locale, where pg_trgm sees no trigram at all in Hangul (`show_trgm('결제')` is empty) and `lower()` leaves
 * non-ASCII letters alone.
 *
 * A query matches a screen when every one of its words is part of one of the screen's words (`결제` finds
 * `결제하기`, `check` finds `checkout`). The screen keeps the one- and two-character pieces of its words
 * (`search_grams`, indexed by GIN): a query word's pieces must all be there, which the index answers, and the word
 * is then checked against the text itself. Two-character pieces suit Korean, whose words are often two syllables,
 * where trigrams find nothing.
 */

/** Longest visible text read from one capture's HTML (the HTML itself is at most 10240 bytes). */
const MAX_VISIBLE_TEXT = 20_000;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Text as the search compares it: compatibility forms folded (NFKC), then lowercased. */
export function normalizeSearch(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/** The words of a text, normalized, in order of first appearance, each once. */
export function searchWords(text: string): string[] {
  return [...new Set(normalizeSearch(text).match(WORD) ?? [])];
}

/** The pieces a word is found by: each character alone and each two neighbouring characters. */
function piecesOf(word: string, into: Set<string>) {
  const characters = Array.from(word);
  for (let index = 0; index < characters.length; index++) {
    into.add(characters[index] as string);
    if (index + 1 < characters.length) into.add(`${characters[index]}${characters[index + 1]}`);
  }
}

/** A screen's search columns from its words: the text (words sorted, space-separated) and their pieces. */
export function searchColumns(words: Iterable<string>): { searchText: string; searchGrams: string[] } {
  const unique = [...new Set(words)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const grams = new Set<string>();
  for (const word of unique) piecesOf(word, grams);
  return { searchText: unique.join(" "), searchGrams: [...grams].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/**
 * A query as the database looks for it: its words, and the pieces the index must hold for all of them: a word's
 * two-character pieces, or the word itself when it is one character (its pieces' other half, the single
 * characters, would add nothing the pairs do not say).
 */
export function searchQuery(q: string): { words: string[]; grams: string[] } {
  const words = searchWords(q);
  const grams = new Set<string>();
  for (const word of words) {
    const characters = Array.from(word);
    if (characters.length === 1) grams.add(word);
    for (let index = 0; index + 1 < characters.length; index++) {
      grams.add(`${characters[index]}${characters[index + 1]}`);
    }
  }
  return { words, grams: [...grams].sort() };
}

/** Elements whose content a visitor never reads as the page's text. */
const UNSEEN = new Set(["head", "script", "style", "noscript", "template", "svg", "math", "iframe", "object"]);
/** Elements that flow within a line: their text joins the text around them (`<b>Check</b>out` is one word). */
const INLINE = new Set([
  "a",
  "abbr",
  "b",
  "bdi",
  "bdo",
  "cite",
  "code",
  "data",
  "dfn",
  "em",
  "i",
  "kbd",
  "mark",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strong",
  "sub",
  "sup",
  "time",
  "u",
  "var",
]);

/**
 * The text a visitor sees in a page's HTML: the text of its body, and the placeholders of its fields, leaving out
 * what is hidden (`hidden`, `aria-hidden="true"`) and what is never shown (scripts, styles, templates, the head).
 */
export function visibleText(html: string): string {
  const parts: string[] = [];
  let length = 0;
  const walk = (node: Html.Node) => {
    if (length >= MAX_VISIBLE_TEXT) return;
    if (node.nodeName === "#text") {
      const value = (node as Html.TextNode).value;
      parts.push(value);
      length += value.length;
      return;
    }
    if (!("childNodes" in node)) return;
    const element = "tagName" in node ? (node as Html.Element) : null;
    const apart = element !== null && !INLINE.has(element.tagName);
    if (element) {
      if (UNSEEN.has(element.tagName)) return;
      const attribute = (name: string) => element.attrs.find((attr) => attr.name === name)?.value;
      if (attribute("hidden") !== undefined || attribute("aria-hidden") === "true") return;
      const placeholder = attribute("placeholder");
      if (placeholder) parts.push(` ${placeholder} `);
    }
    if (apart) parts.push(" ");
    for (const child of (node as Html.ParentNode).childNodes) walk(child);
    if (apart) parts.push(" ");
  };
  walk(parse(html));
  return parts.join("").replace(/\s+/g, " ").trim().slice(0, MAX_VISIBLE_TEXT);
}
