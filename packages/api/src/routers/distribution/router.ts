import { releaseChannels } from "@shelf/db/enums";
import { FileOutput, RedirectOutput, TextOutput } from "@shelf/server/plain";
import { z } from "zod";
import { releaseArtifact } from "../../catalog/releases";
import { exampleRelease } from "../../examples/release";
import { answerLanguageOf } from "../../language";
import { publicProcedure } from "../../procedures";
import { IdParam } from "../../schemas/common";
import { router } from "../../trpc";
import { refusedLinkCode, refusedLinkPage } from "./refused-link-page";
import { appcast, releaseDownload, signedFile } from "./service";

const tags = ["distribution"];

export const distributionRouter = router({
  appcast: publicProcedure
    .meta({
      ability: "device.install",
      anonymous: true,
      plain: {
        method: "GET",
        path: "/distribution/v1/products/{id}/appcast.xml",
        contentTypes: ["application/rss+xml"],
        tags,
        summary: "Sparkle appcast",
        description:
          "RSS 2.0 with Sparkle's elements, one item per release, newest first, signed as a whole (Sparkle 2.9's trailing `sparkle-signatures` comment) and each enclosure with its `sparkle:edSignature`; the public key is what `signing:public-key` prints. Without a key: published products, stable releases. With the key of a buyer: every channel (`channel` narrows the feed to what that channel sees; absent, all channels, each non-stable item tagged with its `sparkle:channel`) and unpublished products.",
      },
      example: { build: async (context) => ({ params: { id: context.productId } }), target: "product" },
      errors: ["product_api_key_scope_required", "product_entitlement_required"],
    })
    .input(z.object({ id: IdParam, channel: z.enum(releaseChannels).optional() }))
    .output(TextOutput)
    .query(({ ctx, input }) => {
      // What the feed lists depends on the key: a shared cache must not hand one reader's feed to another.
      ctx.res.headers.vary = "Authorization";
      return appcast(ctx.db, ctx.delivery, ctx.caller, input.id, input.channel);
    }),

  releaseDownload: publicProcedure
    .meta({
      ability: "device.install",
      anonymous: true,
      plain: {
        method: "GET",
        path: "/distribution/v1/releases/{release}/download",
        contentTypes: ["application/octet-stream"],
        tags,
        summary: "Download a release",
        description:
          "302 to a short-lived signed link. Without a key, only stable releases of free published products; with the key of a buyer, any release published within their update window.",
      },
      example: {
        build: async (context) => ({ params: { release: (await exampleRelease(context)).id } }),
        target: "product",
      },
      errors: ["product_api_key_scope_required", "product_entitlement_required", "version_update_window_expired"],
    })
    .input(z.object({ release: IdParam }))
    .output(RedirectOutput)
    .query(({ ctx, input }) => releaseDownload(ctx.db, ctx.delivery, ctx.caller, input.release)),

  file: publicProcedure
    .meta({
      ability: "public",
      plain: {
        method: "GET",
        path: "/distribution/v1/files/{token}/{filename}",
        contentTypes: ["application/octet-stream"],
        tags,
        summary: "A file, by signed link",
        description:
          "What an install plan's `download_url` and a release download lead to. The link is the permission (no API key); an altered or expired one is 403 (to a browser's navigation, `Sec-Fetch-Mode: navigate`, an HTML page that leads back to the product). Answers `Range` (single, suffix, open-ended, several), `If-Range` and conditional requests, so interrupted and parallel downloads work.",
      },
      example: {
        build: async (context) => {
          const link = await context.delivery.links.link(releaseArtifact(await exampleRelease(context)));
          const [token, filename] = new URL(link.url).pathname.split("/").slice(4);
          return { params: { token: token as string, filename: decodeURIComponent(filename as string) } };
        },
        target: "signed",
      },
      errors: ["download_link_invalid", "download_link_expired"],
      noDatabase: true,
    })
    .input(z.object({ token: z.string().min(1).max(4096), filename: z.string().min(1).max(255) }))
    .output(z.union([FileOutput, TextOutput]))
    .query(({ ctx, input }) => {
      try {
        return signedFile(ctx.delivery, input.token, input.filename);
      } catch (error) {
        const code = refusedLinkCode(error);
        // A browser opening the link (a navigation: no client of the API sends Sec-Fetch-Mode) gets a page with the
        // way back, with the same status; every other client the contract's JSON.
        if (!code || ctx.http?.header("sec-fetch-mode") !== "navigate") throw error;
        const product = ctx.delivery.links.productOf(input.token);
        ctx.res.status = 403;
        return refusedLinkPage(answerLanguageOf(ctx), code, {
          url: `${ctx.baseUrl}/account${product ? `/products/${product}` : ""}`,
          product: product !== null,
        });
      }
    }),
});
