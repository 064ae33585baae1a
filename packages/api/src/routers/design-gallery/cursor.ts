import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { ValidationError } from "../../errors";
import { IdParam } from "../../schemas/common";
import type { ScreenSort } from "../../schemas/gallery-screens";
import { ScreensInput, type ScreensQuery } from "./schemas";

/*
 * The screens list's keyset cursor: the query it pages (filters and sort) and the last screen shown. The next page is
 * the screens after that one in the query's order, so screens added or retired meanwhile never shift or repeat what
 * is left, and a cursor cannot be spent on another query: given alone it carries its query, given with filters they
 * must be its own. It is base64url JSON, checked field by field when read back like any other input.
 */

const QUERY_FIELDS = {
  platform: true,
  app: true,
  q: true,
  sort: true,
  viewport: true,
  lang: true,
  mode: true,
  kind: true,
  patterns: true,
  components: true,
  elements: true,
  fonts: true,
  colors: true,
} as const;

const CarriedQuery = ScreensInput.pick(QUERY_FIELDS);
type CarriedQuery = z.output<typeof CarriedQuery>;

const CursorData = z.object({ query: CarriedQuery, after: IdParam, page: z.int().min(2).max(1_000_000) });

/** The query's fields that say something, name lists sorted: equal queries give equal text. */
function queryOf(input: ScreensQuery): CarriedQuery {
  const query: Record<string, unknown> = {};
  for (const field of Object.keys(QUERY_FIELDS) as (keyof CarriedQuery)[]) {
    const value = input[field];
    if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) continue;
    query[field] = Array.isArray(value) ? [...value].sort() : value;
  }
  return query as CarriedQuery;
}

const textOf = (query: CarriedQuery) => JSON.stringify(Object.entries(query).sort(([a], [b]) => (a < b ? -1 : 1)));

export function writeScreensCursor(input: ScreensQuery, after: number, page: number): string {
  return Buffer.from(JSON.stringify({ query: queryOf(input), after, page })).toString("base64url");
}

const NOT_OURS = "must be a next_cursor of the screens list, unchanged";

/** The query and position a cursor carries; 422 for one that is not ours or belongs to other filters. */
export function readScreensCursor(cursor: string, input: ScreensQuery) {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new ValidationError({ cursor: [NOT_OURS] });
  }
  const parsed = CursorData.safeParse(json);
  if (!parsed.success) throw new ValidationError({ cursor: [NOT_OURS] });
  const carried = queryOf(parsed.data.query);
  const given = queryOf(input);
  if (Object.keys(given).length > 0 && textOf(given) !== textOf(carried)) {
    throw new ValidationError({
      cursor: ["belongs to another query: send it alone, or with the filters and sort it was given for"],
    });
  }
  return { query: carried, after: parsed.data.after, page: parsed.data.page };
}

/** The screens after screen `id` in the sort's order (ties by id, as ORDER sorts them). */
export function afterScreen(sort: ScreenSort, id: number): SQL {
  switch (sort) {
    case "newest":
      return sql`(s.captured_at, s.id) < (select p.captured_at, p.id from gallery_screens p where p.id = ${id})`;
    case "oldest":
      return sql`(s.captured_at, s.id) > (select p.captured_at, p.id from gallery_screens p where p.id = ${id})`;
    case "name":
      return sql`(coalesce(s.title, s.page) COLLATE "C", s.id) >
        (select coalesce(p.title, p.page) COLLATE "C", p.id from gallery_screens p where p.id = ${id})`;
  }
}
