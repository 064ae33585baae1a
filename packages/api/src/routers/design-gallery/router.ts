import { JsonText, jsonTextOf } from "@shelf/server/json-text";
import { FileOutput } from "@shelf/server/plain";
import { z } from "zod";
import { storedFile } from "../../delivery/artifacts";
import { screensPageText } from "../../design-gallery/query/counts";
import { designPublicProcedure } from "../../procedures";
import { COLLECT_CONTENT_TYPES } from "../../schemas/capture-meta";
import { ScreensPage } from "../../schemas/gallery-screens";
import { designRoutes } from "../../trpc";
import { exampleScreen } from "./examples";
import {
  AppAnswer,
  IdInput,
  PatternsAnswer,
  ScreenAnswer,
  ScreensInput,
  TaxonomyAnswer,
  TaxonomyInput,
  VariantImageInput,
} from "./schemas";
import { getApp, getScreen, listPatterns, listScreens, taxonomy, variantImage } from "./service";

const tags = ["gallery"];

/**
 * How long a gallery answer may be reused: the gallery changes only when a collect run is replayed, so a minute's
 * staleness is the whole cost, and revalidation (the edge's ETag) is cheap after it.
 */
const ANSWER_CACHE = "public, max-age=60";
/** An image route's bytes never change: its variant is never edited once written (see the gallery schema). */
const IMAGE_CACHE = "public, max-age=31536000, immutable";

const OPEN = "No credentials (scheme `design_gallery`): limited per client address like every request here.";

/** Images a client address may load a minute: a page of thumbnails is dozens at once (the API's own limit: 60). */
export const GALLERY_IMAGES_PER_MINUTE = 1200;

const cacheable = (ctx: { res: { headers: Record<string, string> } }) => {
  ctx.res.headers["cache-control"] = ANSWER_CACHE;
};

/** The design host's gallery: what the replayed collect runs made, open to anyone (contract section 4). */
export const designGalleryRouter = designRoutes({
  screens: designPublicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/v1/screens",
        tags,
        summary: "Current screens, filtered, sorted and paged, with facets",
        description: `Each filter narrows the list; every one given must hold. \`patterns\`, \`components\`, \`elements\`, \`fonts\` and \`colors\` take several names (repeated parameters or a comma list), all of which a screen must have; \`viewport\`, \`lang\` and \`mode\` must hold for one variant together. A name or value the gallery does not know is 422 naming the field, never an empty list. \`facets\` gives, for each filter, the values with the screens each would leave. ${OPEN}`,
      },
      listing: "everyone",
    })
    .input(ScreensInput)
    // Written once as JSON, not checked again field by field: a page's facets hold thousands of values (the tests
    // check every answer against ScreensPage in full).
    .output(jsonTextOf(ScreensPage))
    .query(async ({ ctx, input }) => {
      cacheable(ctx);
      return new JsonText(screensPageText(await listScreens(ctx.db, { baseUrl: ctx.baseUrl }, input)));
    }),

  screen: designPublicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/v1/screens/{id}",
        tags,
        summary: "One screen, current or history, with its variants and their evidence",
        description: `Any screen ever shown, whatever its status: \`current\` says whether the gallery shows it now, \`replaced_by_id\` what replaced it and \`current_id\` the page's screen now. Its variants (viewport, language, signed-in state, mode) with their images and evidence (run, capture key, final URL, HTTP status, builds, time), its tags, fonts and colors, and its page's history. ${OPEN}`,
      },
      listing: "everyone",
      designExample: {
        build: async ({ db, delivery }) => ({ params: { id: (await exampleScreen(db, delivery.store)).screenId } }),
      },
    })
    .input(IdInput)
    .output(ScreenAnswer)
    .query(async ({ ctx, input }) => {
      cacheable(ctx);
      return { screen: await getScreen(ctx.db, { baseUrl: ctx.baseUrl }, input.id) };
    }),

  image: designPublicProcedure
    .meta({
      ability: "public",
      plain: {
        method: "GET",
        path: "/api/v1/screens/{id}/variants/{variant}/image",
        contentTypes: ["image/png", "image/jpeg", "image/webp"],
        tags,
        summary: "A variant's image",
        description: `The captured image's bytes from the artifact store, immutable under this address (cached for a year): a strong ETag (its sha256), Last-Modified, Range and If-None-Match. No credentials; images have a limit of their own, ${GALLERY_IMAGES_PER_MINUTE} a minute per client address, instead of the API's (a page of thumbnails loads dozens at once).`,
      },
      addressLimit: { name: "gallery-images", perMinute: GALLERY_IMAGES_PER_MINUTE, instead: true },
      designExample: {
        build: async ({ db, delivery }) => {
          const { screenId, variantId } = await exampleScreen(db, delivery.store);
          return { params: { id: screenId, variant: variantId } };
        },
      },
    })
    .input(VariantImageInput)
    .output(FileOutput)
    .query(async ({ ctx, input }) => {
      const image = await variantImage(ctx.db, input.id, input.variant);
      return storedFile(
        ctx.delivery.store,
        {
          key: image.image_key,
          sha256: image.image_sha256,
          size: image.image_size,
          contentType: COLLECT_CONTENT_TYPES[image.image_type],
          filename: null,
          lastModified: new Date(image.captured_at),
        },
        IMAGE_CACHE,
      );
    }),

  app: designPublicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/v1/apps/{id}",
        tags,
        summary: "One app with its flows and screens",
        description: `The app, its fonts and colors (from the newest run that captured it), its current flows with each step as its page's current screen (steps of pages no longer shown are left out), and its current screens by page. ${OPEN}`,
      },
      listing: "everyone",
      designExample: {
        build: async ({ db, delivery }) => ({ params: { id: (await exampleScreen(db, delivery.store)).appId } }),
      },
    })
    .input(IdInput)
    .output(AppAnswer)
    .query(async ({ ctx, input }) => {
      cacheable(ctx);
      return { app: await getApp(ctx.db, { baseUrl: ctx.baseUrl }, input.id) };
    }),

  patterns: designPublicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/v1/patterns",
        tags,
        summary: "Patterns with their definitions and counts",
        description: `Every pattern current screens show, most shown first, with a short definition for the patterns the gallery knows (null for others) and how many current screens show it. ${OPEN}`,
      },
      listing: "everyone",
    })
    .input(z.object({}))
    .output(PatternsAnswer)
    .query(({ ctx }) => {
      cacheable(ctx);
      return listPatterns(ctx.db);
    }),

  taxonomy: designPublicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/api/v1/taxonomy",
        tags,
        summary: "Page types, patterns, elements, components, fonts and colors, with counts",
        description: `Each kind's terms that current screens have, with how many, most first; \`kind\` gives one kind only. ${OPEN}`,
      },
      listing: "everyone",
    })
    .input(TaxonomyInput)
    .output(TaxonomyAnswer)
    .query(async ({ ctx, input }) => {
      cacheable(ctx);
      return { taxonomy: await taxonomy(ctx.db, input.kind) };
    }),
});
