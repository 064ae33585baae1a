import { randomUUID } from "node:crypto";
import type { Database } from "@shelf/db";
import { createDesignToken } from "../../auth/design-token-admin";
import { designProcedure } from "../../procedures";
import { PageInput } from "../../schemas/design-page";
import { designRoutes } from "../../trpc";
import {
  DocumentAnswer,
  DocumentSlug,
  PendingPage,
  ReadDocumentInput,
  ReviewInput,
  SubmitVersionInput,
  VersionAnswer,
  VersionsPage,
  WriteVersionInput,
} from "./schemas";
import { listVersions, pendingReviews, readDocument, reviewVersion, submitVersion, writeVersion } from "./service";

const tags = ["design documents"];

/** A document `slug` with version 1 written by a token of its own (so the example's agent may review it). */
async function documentWithVersion(db: Database, status: "draft" | "submitted" | "approved") {
  const slug = `example-${randomUUID().slice(0, 8)}`;
  const author = await createDesignToken(db, { name: `author-${slug}`, roles: ["write"] }, "shelf");
  const writer = { tokenId: author.record.id, name: author.record.name };
  await writeVersion(db, writer, { slug, body: `# ${slug}\n\nText.`, base_version: 0 });
  if (status !== "draft") await submitVersion(db, slug, 1);
  if (status === "approved") {
    const reviewer = await createDesignToken(db, { name: `reviewer-${slug}`, roles: ["review"] }, "shelf");
    const by = { tokenId: reviewer.record.id, name: reviewer.record.name };
    await reviewVersion(db, by, { slug, version: 1, verdict: "approved", reason: "Example." });
  }
  return slug;
}
const agent = (caller: { tokenId: number; name: string }) => ({ tokenId: caller.tokenId, name: caller.name });
const PAGING =
  "Paged: `limit` (default 20, at most 100) items after `cursor`, the `next_cursor` of the page before (null on the last page); rows added meanwhile never shift or repeat what is left.";

export const designDocsRouter = designRoutes({
  read: designProcedure
    .meta({
      role: "read",
      openapi: {
        method: "GET",
        path: "/api/agent/docs/{slug}",
        tags,
        summary: "A design document at a version",
        description:
          "Without `version`: the current version, the newest approved one (404 while none is approved; the answer then names `latest_version`). `document` states `current_version`, `latest_version` and the `pending_versions` waiting for review.",
      },
      designExample: { build: async ({ db }) => ({ params: { slug: await documentWithVersion(db, "approved") } }) },
    })
    .input(ReadDocumentInput)
    .output(DocumentAnswer)
    .query(({ ctx, input }) => readDocument(ctx.db, input.slug, input.version)),

  versions: designProcedure
    .meta({
      role: "read",
      openapi: {
        method: "GET",
        path: "/api/agent/docs/{slug}/versions",
        tags,
        summary: "A design document's versions, newest first",
        description: PAGING,
      },
      designExample: { build: async ({ db }) => ({ params: { slug: await documentWithVersion(db, "draft") } }) },
    })
    .input(PageInput.extend({ slug: DocumentSlug }))
    .output(VersionsPage)
    .query(({ ctx, input }) => listVersions(ctx.db, input.slug, input)),

  write: designProcedure
    .meta({
      role: "write",
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/agent/docs/{slug}/versions",
        tags,
        summary: "Write a draft version on a base version",
        description:
          "Makes draft version N+1 on `base_version` N (0 for a new document). A `base_version` that is not the newest is 409 `stale_base_version` naming `latest_version` and `latest_author`: read that version, rebase, and write on it. Of writers on the same base exactly one wins; nothing is ever merged. The title is the body's first Markdown heading.",
      },
      errors: ["stale_base_version"],
      designExample: {
        target: "created",
        build: () => ({
          params: { slug: `example-${randomUUID().slice(0, 8)}` },
          body: { body: "# Example\n\nText.", base_version: 0 },
        }),
      },
    })
    .input(WriteVersionInput)
    .output(VersionAnswer)
    .mutation(({ ctx, input }) => writeVersion(ctx.db, agent(ctx.caller), input)),

  submit: designProcedure
    .meta({
      role: "write",
      openapi: {
        method: "POST",
        path: "/api/agent/docs/{slug}/versions/{number}/submit",
        tags,
        summary: "Put a draft up for review",
        description: "Only a draft is submitted: submitting again, or a reviewed version, is 409.",
      },
      errors: ["conflict"],
      designExample: {
        build: async ({ db }) => ({ params: { slug: await documentWithVersion(db, "draft"), number: 1 } }),
      },
    })
    .input(SubmitVersionInput)
    .output(VersionAnswer)
    .mutation(({ ctx, input }) => submitVersion(ctx.db, input.slug, input.number)),

  review: designProcedure
    .meta({
      role: "review",
      openapi: {
        method: "POST",
        path: "/api/agent/reviews",
        tags,
        summary: "Record a verdict on a submitted version",
        description:
          "One verdict (`approved`, `changes_requested` or `rejected`, with a `reason`) per submitted version; it binds to that version only. A second verdict, or one on a draft, is 409; an agent reviewing a version it wrote (with any token of the writer's name: tokens of one name are one agent) is 403 `review_of_own_version`. An approved version becomes the document's current version unless a newer one is approved.",
      },
      errors: ["conflict", "review_of_own_version", "not_found"],
      designExample: {
        build: async ({ db }) => ({
          body: { slug: await documentWithVersion(db, "submitted"), version: 1, verdict: "approved", reason: "Fine." },
        }),
      },
    })
    .input(ReviewInput)
    .output(VersionAnswer)
    .mutation(({ ctx, input }) => reviewVersion(ctx.db, agent(ctx.caller), input)),

  pending: designProcedure
    .meta({
      role: "review",
      openapi: {
        method: "GET",
        path: "/api/agent/reviews/pending",
        tags,
        summary: "Submitted versions waiting for a verdict, oldest first",
        description: PAGING,
      },
    })
    .input(PageInput)
    .output(PendingPage)
    .query(({ ctx, input }) => pendingReviews(ctx.db, input)),
});
