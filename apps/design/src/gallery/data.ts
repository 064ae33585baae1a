import { designGallery, ValidationError } from "@shelf/api";
import { withDeadline } from "@shelf/db";
import { getRuntime } from "../runtime";

/** Image links relative to this host, whatever name it was reached by (the pages' CSP allows this origin's images). */
const LINKS = { baseUrl: "" };

/** A gallery read for a page, bounded by the API's database deadline (an outage shows the error page, not a hang). */
async function read<T>(work: (db: ReturnType<typeof getRuntime>["db"]) => Promise<T>): Promise<T> {
  const runtime = getRuntime();
  return withDeadline(work(runtime.db), runtime.dbDeadlineMs);
}

type ScreensQuery = Parameters<typeof designGallery.listScreens>[2];

/** One page of the grid with its facets, or the fields a name the gallery does not know is in (the API's 422). */
export async function screensPage(input: ScreensQuery) {
  try {
    return { ok: true as const, page: await read((db) => designGallery.listScreens(db, LINKS, input)) };
  } catch (error) {
    if (error instanceof ValidationError) return { ok: false as const, errors: error.errors };
    throw error;
  }
}

/** A screen by id, or null when there is none (the page's 404). */
export async function screenDetail(id: number) {
  return read((db) => designGallery.getScreen(db, LINKS, id)).catch(notFoundAsNull);
}

export async function appDetail(id: number) {
  return read((db) => designGallery.getApp(db, LINKS, id)).catch(notFoundAsNull);
}

export function patterns() {
  return read((db) => designGallery.listPatterns(db));
}

export function taxonomy() {
  return read((db) => designGallery.taxonomy(db, undefined));
}

function notFoundAsNull(error: unknown): null {
  if ((error as { code?: string }).code === "not_found") return null;
  throw error;
}

/** A path segment as a gallery id: digits only, within PostgreSQL's integer; anything else has no page. */
export function idOf(segment: string): number | null {
  return /^[1-9]\d{0,9}$/.test(segment) && Number(segment) <= 2_147_483_647 ? Number(segment) : null;
}
