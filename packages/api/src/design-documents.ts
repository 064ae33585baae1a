/**
 * The design documents as every answer describes them, and their list: the design docs routes answer with them, the
 * manifest lists them.
 */
import type { Database, Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { asc, eq, gt, sql } from "drizzle-orm";
import type { DesignDocumentData } from "./schemas/design-document";
import { DESIGN_PAGE, type PageInput } from "./schemas/design-page";

const { designDocuments, designDocumentVersions } = schema;

/** How many items a page of the design host's lists holds. */
export const pageSize = (page: PageInput) => page.limit ?? DESIGN_PAGE.default;

/** What a document's answers say of it: its current (newest approved), latest and pending versions. */
export async function documentData(
  db: Executor,
  document: typeof designDocuments.$inferSelect,
): Promise<DesignDocumentData> {
  const [summary] = await db
    .select({
      current: sql<
        number | null
      >`max(${designDocumentVersions.number}) filter (where ${designDocumentVersions.status} = 'approved')`,
      latest: sql<number | null>`max(${designDocumentVersions.number})`,
      pending: sql<
        number[] | null
      >`array_agg(${designDocumentVersions.number} order by ${designDocumentVersions.number}) filter (where ${designDocumentVersions.status} = 'submitted')`,
    })
    .from(designDocumentVersions)
    .where(eq(designDocumentVersions.documentId, document.id));
  return {
    slug: document.slug,
    title: document.title,
    current_version: summary?.current ?? null,
    latest_version: summary?.latest ?? 0,
    pending_versions: summary?.pending ?? [],
    updated_at: document.updatedAt.toISOString(),
  };
}

/** Every document with its current, latest and pending versions, oldest document first, paged by its id. */
export async function listDocuments(db: Database, page: PageInput) {
  const limit = pageSize(page);
  const documents = await db
    .select()
    .from(designDocuments)
    .where(page.cursor ? gt(designDocuments.id, Number(page.cursor)) : undefined)
    .orderBy(asc(designDocuments.id))
    .limit(limit + 1);
  const shown = documents.slice(0, limit);
  return {
    items: await Promise.all(shown.map((document) => documentData(db, document))),
    next_cursor: documents.length > limit ? String(shown.at(-1)?.id) : null,
  };
}
