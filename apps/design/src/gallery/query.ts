import { gallerySchemas } from "@shelf/api";

/** A page's query as Next gives it. */
export type SearchParams = Record<string, string | string[] | undefined>;

/** The filters of the grid, in the order the facet panel shows them; the same names as `GET /api/v1/screens`. */
export const FILTERS = [
  "kind",
  "patterns",
  "components",
  "elements",
  "colors",
  "fonts",
  "viewport",
  "lang",
  "mode",
  "platform",
  "app",
] as const;
export type FilterName = (typeof FILTERS)[number];

/** Filters that take several names (every one must hold); the others take one value. */
export const LIST_FILTERS = new Set<string>(["patterns", "components", "elements", "fonts", "colors"]);

/** Every parameter the grid keeps in its address. */
const KEPT = new Set<string>([...FILTERS, "q", "sort", "cols", "page"]);

/** The query as URL parameters: names of list filters one per value, unknown parameters dropped. */
export function toParams(params: SearchParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (!KEPT.has(name) || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      for (const part of LIST_FILTERS.has(name) ? item.split(",") : [item]) {
        const trimmed = part.trim();
        if (trimmed && !query.getAll(name).includes(trimmed)) query.append(name, trimmed);
      }
    }
  }
  return query;
}

/**
 * The API's own input schema reads the address, so a link shows exactly what `GET /api/v1/screens` would answer for
 * it: integers where it takes integers (anything else stays text, for the schema to refuse), names as lists.
 */
export function readScreensQuery(
  query: URLSearchParams,
): { ok: true; input: gallerySchemas.ScreensQuery } | { ok: false; errors: Record<string, string[]> } {
  const raw: Record<string, unknown> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    if (name === "cols" || name === "page") {
      const text = values[0] as string;
      raw[name] = /^\d{1,6}$/.test(text) ? Number(text) : text;
    } else raw[name] = LIST_FILTERS.has(name) ? values : values[values.length - 1];
  }
  const parsed = gallerySchemas.ScreensInput.safeParse(raw);
  if (parsed.success) return { ok: true, input: parsed.data };
  const errors: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? "query");
    errors[field] = [...(errors[field] ?? []), issue.message];
  }
  return { ok: false, errors };
}

/** The address of the grid with one change: a filter's value set, toggled or removed; paging starts again. */
export function gridHref(
  query: URLSearchParams,
  change: { set?: [string, string]; toggle?: [string, string]; remove?: string; page?: number },
): string {
  const next = new URLSearchParams(query);
  if (change.set) next.set(change.set[0], change.set[1]);
  if (change.toggle) {
    const [name, value] = change.toggle;
    const values = next.getAll(name);
    next.delete(name);
    const kept = values.includes(value) ? values.filter((item) => item !== value) : [...values, value];
    for (const item of kept) next.append(name, item);
  }
  if (change.remove) next.delete(change.remove);
  next.delete("page");
  if (change.page && change.page > 1) next.set("page", String(change.page));
  const text = next.toString();
  return text ? `/screens?${text}` : "/screens";
}

/** A link into the grid with one filter. */
export function filterHref(name: string, value: string): string {
  return `/screens?${new URLSearchParams({ [name]: value })}`;
}

/** The grid filter a taxonomy kind is searched by. */
export const KIND_FILTER: Record<string, string> = {
  page_type: "kind",
  pattern: "patterns",
  element: "elements",
  component: "components",
  font: "fonts",
  color: "colors",
};
