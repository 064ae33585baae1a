import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { BaseContext } from "../../context";
import { publicProcedure } from "../../procedures";
import { PublicDisclosureData } from "../../schemas/disclosure";
import { router } from "../../trpc";
import { DownloadPipelineData, LineageData, LineagesData } from "./schemas";
import { downloadPipeline, getLineage, listLineages, publicDisclosure } from "./service";

const tags = ["public"];

/** Public answers may be kept by shared caches for a while, and revalidated by their ETag. */
function cacheable(ctx: Pick<BaseContext, "res">, seconds: number) {
  ctx.res.headers["cache-control"] = `public, max-age=${seconds}`;
}

export const publicRouter = router({
  pipeline: publicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/downloads/pipeline",
        tags: ["downloads"],
        summary: "What each channel serves",
        description:
          "Per channel (stable, beta, alpha, dev): the newest release of every published product on it, the platforms it serves, and the checklist apps depend on (a stored file, its signature, notes in English and Korean, a minimum OS), with how many are ready. No key; shared caches may keep it a minute.",
      },
    })
    .input(z.object({}))
    .output(DownloadPipelineData)
    .query(({ ctx }) => {
      cacheable(ctx, 60);
      return downloadPipeline(ctx.db);
    }),

  lineages: publicProcedure
    .meta({
      ability: "public",
      openapi: { method: "GET", path: "/api/lineages", tags, summary: "The active lineages (product families)" },
    })
    .input(z.object({}))
    .output(LineagesData)
    .query(({ ctx }) => {
      cacheable(ctx, 300);
      return listLineages(ctx.db);
    }),

  lineage: publicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/lineages/{slug}",
        tags,
        summary: "One lineage and its products",
        description:
          "Its published products, each with its newest stable version. An unknown or inactive lineage is 404.",
      },
      example: {
        build: async ({ db, productId }) => {
          const slug = `matrix-${productId}`;
          const [lineage] = await db
            .insert(schema.lineages)
            .values({ slug, name: "Matrix lineage" })
            .onConflictDoNothing()
            .returning();
          if (lineage) {
            await db.update(schema.products).set({ lineageId: lineage.id }).where(eq(schema.products.id, productId));
          }
          return { params: { slug } };
        },
        target: "public",
      },
    })
    .input(z.object({ slug: z.string().min(1).max(200) }))
    .output(LineageData)
    .query(({ ctx, input }) => {
      cacheable(ctx, 300);
      return getLineage(ctx.db, input.slug);
    }),

  disclosure: publicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/public/disclosure",
        tags,
        summary: "The business disclosure (Korean and English)",
        description: "As the deployment configures it (SHELF_DISCLOSURE_FILE); 404 when it publishes none.",
      },
    })
    .input(z.object({}))
    .output(PublicDisclosureData)
    .query(({ ctx }) => {
      cacheable(ctx, 3600);
      return publicDisclosure(ctx.disclosure);
    }),
});
