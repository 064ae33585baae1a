import { type Database, type Executor, schema } from "@shelf/db";
import type { DesignVerdict } from "@shelf/db/enums";
import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import { documentData, pageSize } from "../../design-documents";
import { DomainError } from "../../errors";
import { isoOrNull } from "../../schemas/common";
import type { PageInput } from "../../schemas/design-page";
import type { DesignVersionData, ReviewInput, WriteVersionInput } from "./schemas";

const { designDocuments, designDocumentVersions, designReviews } = schema;

/** Who writes or reviews: a design agent token, named as its operator named it. */
export type DesignAgent = { tokenId: number; name: string };

/** A document's title: its first Markdown heading, else its slug. */
function titleOf(slug: string, body: string): string {
  const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(body)?.[1]?.trim();
  return (heading || slug).slice(0, 200);
}

type VersionRow = typeof designDocumentVersions.$inferSelect & {
  review: typeof designReviews.$inferSelect | null;
};

function versionData(row: VersionRow): DesignVersionData {
  return {
    number: row.number,
    base_version: row.number - 1,
    status: row.status,
    author: row.authorName,
    created_at: row.createdAt.toISOString(),
    submitted_at: isoOrNull(row.submittedAt),
    review: row.review
      ? {
          verdict: row.review.verdict,
          reason: row.review.reason,
          reviewer: row.review.reviewerName,
          reviewed_at: row.review.createdAt.toISOString(),
        }
      : null,
  };
}

const versionColumns = { version: designDocumentVersions, review: designReviews };

function versionsOf(db: Executor) {
  return db
    .select(versionColumns)
    .from(designDocumentVersions)
    .leftJoin(designReviews, eq(designReviews.versionId, designDocumentVersions.id));
}

const flatten = (row: { version: typeof designDocumentVersions.$inferSelect; review: VersionRow["review"] }) => ({
  ...row.version,
  review: row.review,
});

async function findDocument(db: Executor, slug: string) {
  const [document] = await db.select().from(designDocuments).where(eq(designDocuments.slug, slug));
  if (!document) throw new DomainError("not_found", `No design document ${slug}.`);
  return document;
}

/**
 * Writes draft version N+1 on `base_version` N (0 for a new document). The document's row is locked first, so of
 * parallel writers on one base exactly one wins; the others are told the newest version and its author, to rebase
 * in one round trip. Nothing is ever merged.
 */
export async function writeVersion(db: Database, agent: DesignAgent, input: WriteVersionInput) {
  return db.transaction(async (tx) => {
    await tx
      .insert(designDocuments)
      .values({ slug: input.slug, title: titleOf(input.slug, input.body) })
      .onConflictDoNothing({ target: designDocuments.slug });
    const [document] = await tx
      .select()
      .from(designDocuments)
      .where(eq(designDocuments.slug, input.slug))
      .for("update");
    if (!document) throw new Error(`design document ${input.slug} vanished inside its transaction`);
    const [newest] = await tx
      .select({ number: designDocumentVersions.number, author: designDocumentVersions.authorName })
      .from(designDocumentVersions)
      .where(eq(designDocumentVersions.documentId, document.id))
      .orderBy(desc(designDocumentVersions.number))
      .limit(1);
    const latest = newest?.number ?? 0;
    if (input.base_version !== latest) {
      throw new DomainError(
        "stale_base_version",
        latest === 0
          ? `The document ${input.slug} has no version yet: write on base_version 0.`
          : `Version ${latest} (by ${newest?.author}) is the newest: write on base_version ${latest}.`,
        { latest_version: latest, latest_author: newest?.author ?? null },
      );
    }
    const [version] = await tx
      .insert(designDocumentVersions)
      .values({
        documentId: document.id,
        number: latest + 1,
        body: input.body,
        authorTokenId: agent.tokenId,
        authorName: agent.name,
      })
      .returning();
    const [updated] = await tx
      .update(designDocuments)
      .set({ title: titleOf(input.slug, input.body), updatedAt: sql`now()` })
      .where(eq(designDocuments.id, document.id))
      .returning();
    return {
      document: await documentData(tx, updated ?? document),
      version: versionData({ ...(version as typeof designDocumentVersions.$inferSelect), review: null }),
    };
  });
}

/** Puts a draft up for review; a version that is not a draft (submitted already, or reviewed) is 409. */
export async function submitVersion(db: Database, slug: string, number: number) {
  return db.transaction(async (tx) => {
    const document = await findDocument(tx, slug);
    const [row] = await versionsOf(tx)
      .where(and(eq(designDocumentVersions.documentId, document.id), eq(designDocumentVersions.number, number)))
      .for("update", { of: designDocumentVersions });
    if (!row) throw new DomainError("not_found", `The document ${slug} has no version ${number}.`);
    if (row.version.status !== "draft") {
      throw new DomainError(
        "conflict",
        `Version ${number} is ${row.version.status}, not a draft: only a draft is submitted.`,
      );
    }
    const [submitted] = await tx
      .update(designDocumentVersions)
      .set({ status: "submitted", submittedAt: sql`now()` })
      .where(eq(designDocumentVersions.id, row.version.id))
      .returning();
    await tx.update(designDocuments).set({ updatedAt: sql`now()` }).where(eq(designDocuments.id, document.id));
    return {
      document: await documentData(tx, { ...document, updatedAt: new Date() }),
      version: versionData({ ...(submitted as typeof designDocumentVersions.$inferSelect), review: null }),
    };
  });
}

/**
 * Records the one verdict on a submitted version. It binds to that version only: a newer version waits for its own.
 * An agent (every token of the writer's name) never reviews what it wrote; a second verdict, or a verdict on a draft,
 * is 409.
 */
export async function reviewVersion(db: Database, reviewer: DesignAgent, input: ReviewInput) {
  return db.transaction(async (tx) => {
    const document = await findDocument(tx, input.slug);
    const [row] = await tx
      .select()
      .from(designDocumentVersions)
      .where(and(eq(designDocumentVersions.documentId, document.id), eq(designDocumentVersions.number, input.version)))
      .for("update");
    if (!row) throw new DomainError("not_found", `The document ${input.slug} has no version ${input.version}.`);
    if (row.status !== "submitted") {
      throw new DomainError(
        "conflict",
        row.status === "draft"
          ? `Version ${input.version} is a draft: it is reviewed once submitted.`
          : `Version ${input.version} has its verdict already (${row.status}).`,
      );
    }
    // Tokens of one name are one agent (a rotated token keeps its name): the name decides, not the token.
    if (row.authorName === reviewer.name || row.authorTokenId === reviewer.tokenId) {
      throw new DomainError("review_of_own_version");
    }
    const verdict: DesignVerdict = input.verdict;
    const [review] = await tx
      .insert(designReviews)
      .values({
        versionId: row.id,
        verdict,
        reason: input.reason,
        reviewerTokenId: reviewer.tokenId,
        reviewerName: reviewer.name,
      })
      .returning();
    const [reviewed] = await tx
      .update(designDocumentVersions)
      .set({ status: verdict })
      .where(eq(designDocumentVersions.id, row.id))
      .returning();
    await tx.update(designDocuments).set({ updatedAt: sql`now()` }).where(eq(designDocuments.id, document.id));
    return {
      document: await documentData(tx, { ...document, updatedAt: new Date() }),
      version: versionData({
        ...(reviewed as typeof designDocumentVersions.$inferSelect),
        review: review as typeof designReviews.$inferSelect,
      }),
    };
  });
}

/** A document at a version: the current one (newest approved; 404 while none is) unless `version` names one. */
export async function readDocument(db: Database, slug: string, version?: number) {
  const document = await findDocument(db, slug);
  const data = await documentData(db, document);
  const number = version ?? data.current_version;
  if (number === null) {
    throw new DomainError(
      "not_found",
      `The document ${slug} has no approved version yet; read one by ?version= (latest: ${data.latest_version}).`,
      { latest_version: data.latest_version },
    );
  }
  const [row] = await versionsOf(db).where(
    and(eq(designDocumentVersions.documentId, document.id), eq(designDocumentVersions.number, number)),
  );
  if (!row) throw new DomainError("not_found", `The document ${slug} has no version ${number}.`);
  const full = flatten(row);
  return { document: data, version: { ...versionData(full), body: full.body } };
}

/** A document's versions, newest first, paged by version number. */
export async function listVersions(db: Database, slug: string, page: PageInput) {
  const document = await findDocument(db, slug);
  const limit = pageSize(page);
  const rows = await versionsOf(db)
    .where(
      and(
        eq(designDocumentVersions.documentId, document.id),
        page.cursor ? lt(designDocumentVersions.number, Number(page.cursor)) : undefined,
      ),
    )
    .orderBy(desc(designDocumentVersions.number))
    .limit(limit + 1);
  const items = rows.slice(0, limit).map((row) => versionData(flatten(row)));
  return { items, next_cursor: rows.length > limit ? String(items.at(-1)?.number) : null };
}

/** Submitted versions waiting for a verdict, oldest version first, paged by the version's id. */
export async function pendingReviews(db: Database, page: PageInput) {
  const limit = pageSize(page);
  const rows = await db
    .select({ version: designDocumentVersions, slug: designDocuments.slug, title: designDocuments.title })
    .from(designDocumentVersions)
    .innerJoin(designDocuments, eq(designDocuments.id, designDocumentVersions.documentId))
    .where(
      and(
        eq(designDocumentVersions.status, "submitted"),
        page.cursor ? gt(designDocumentVersions.id, Number(page.cursor)) : undefined,
      ),
    )
    .orderBy(asc(designDocumentVersions.id))
    .limit(limit + 1);
  const shown = rows.slice(0, limit);
  return {
    items: shown.map((row) => ({
      slug: row.slug,
      title: row.title,
      version: versionData({ ...row.version, review: null }),
    })),
    next_cursor: rows.length > limit ? String(shown.at(-1)?.version.id) : null,
  };
}
