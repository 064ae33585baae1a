/**
 * drizzle writes a column of a query's only table without its table name (`"id"`, not `"products"."id"`). Put inside
 * a hand-written subquery of a `sql` template, such a bare name binds to the subquery's own table when that table has
 * a column of the same name: `(select ... from releases r where r.product_id = "id")` compares `r.id`, silently.
 *
 * Every statement the test suite sends is checked for that pattern: a parenthesised `select` whose FROM names a table
 * written by hand (unquoted, as this project writes SQL by hand), holding a double-quoted name at its own level that
 * is neither qualified (`"t"."c"`, `t."c"`), a qualifier itself, nor an alias. Subqueries drizzle builds itself name
 * their tables quoted, and their bare names are their own table's.
 */
export function bareColumnsInSubqueries(statement: string): string[] {
  const text = blankLiterals(statement);
  const found: string[] = [];
  for (const span of subquerySpans(text)) {
    const level = ownLevel(text, span);
    const from = /\bfrom\s+(\S)/i.exec(level);
    if (!from || from[1] === '"' || from[1] === "(") continue;
    for (const match of level.matchAll(/"([^"]+)"/g)) {
      const before = level.slice(0, match.index);
      const after = level.slice(match.index + match[0].length);
      if (/\.\s*$/.test(before) || /^\s*\./.test(after)) continue;
      if (/(\b(from|join|into|update|as|collate)|\))\s+$|::\s*$/i.test(before)) continue;
      if (/\b(from|join)\s+("[^"]+"|\w+)\s+$/i.test(before)) continue;
      found.push(match[1] as string);
    }
  }
  return [...new Set(found)];
}

type Span = { start: number; end: number; inner: Array<[number, number]> };

/** Replaces the inside of string literals with spaces, so that a quote or parenthesis in data is not read as SQL. */
function blankLiterals(statement: string): string {
  return statement.replace(/'(?:[^']|'')*'/g, (literal) => `'${" ".repeat(literal.length - 2)}'`);
}

/** Every `( select ... )`, nested ones included, with the subqueries directly inside it. */
function subquerySpans(text: string): Span[] {
  const spans: Span[] = [];
  const open: Array<{ at: number; select: boolean; inner: Array<[number, number]> }> = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "(") open.push({ at: i, select: /^\(\s*select\b/i.test(text.slice(i, i + 16)), inner: [] });
    else if (char === ")") {
      const paren = open.pop();
      if (!paren?.select) continue;
      spans.push({ start: paren.at + 1, end: i, inner: paren.inner });
      const enclosing = open.findLast((candidate) => candidate.select);
      enclosing?.inner.push([paren.at, i + 1]);
    }
  }
  return spans;
}

/** A subquery's text with the subqueries inside it blanked: they are judged on their own. */
function ownLevel(text: string, span: Span): string {
  let level = text.slice(span.start, span.end);
  for (const [start, end] of span.inner) {
    const from = start - span.start;
    level = `${level.slice(0, from)}(${" ".repeat(end - start - 2)})${level.slice(end - span.start)}`;
  }
  return level;
}
