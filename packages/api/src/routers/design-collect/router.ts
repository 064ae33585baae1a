import { createHash } from "node:crypto";
import type { Database } from "@shelf/db";
import { collectRuns } from "@shelf/db/schema";
import { eq } from "drizzle-orm";
import { designProcedure } from "../../procedures";
import { designRoutes } from "../../trpc";
import { failRunAsOperator } from "./admin-service";
import {
  AssetAnswer,
  AssetInput,
  CaptureAnswer,
  CaptureInput,
  COLLECT_LIMITS,
  DEFAULT_COLLECT_LEASE_SECONDS,
  FailRunInput,
  OpenRunInput,
  RunAnswer,
  RunParam,
  SubmitRunInput,
} from "./schemas";
import { type CollectAgent, failRun, openRun, putAsset, putCapture, readRun } from "./service";
import { submitRun } from "./submit";

const tags = ["collect runs"];

/** A run the example's agent opened, the lock taken from whichever run held it (as an operator would). */
async function exampleRun(db: Database, by: CollectAgent): Promise<number> {
  const open = await db.select({ id: collectRuns.id }).from(collectRuns).where(eq(collectRuns.status, "open"));
  for (const { id } of open) await failRunAsOperator(db, id, "example");
  return (await openRun(db, by, { apps: null, viewports: ["desktop"], langs: ["en"] })).id;
}

/** The smallest PNG there is: one transparent pixel. */
const EXAMPLE_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==",
  "base64",
);
const EXAMPLE_CSS = "body { color: #111; font-family: Inter, sans-serif; }";

function exampleForm(fields: Record<string, string | Blob>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}
const agent = (caller: CollectAgent): CollectAgent => ({ tokenId: caller.tokenId, name: caller.name });
const lease = (ctx: { collectLeaseSeconds: number }) => ({ leaseSeconds: ctx.collectLeaseSeconds });

const FAMILY =
  "Only tokens with the opener's name (its family: an operator rotates a token by issuing a new one under the same name) see the run; to any other token it is 404, as a missing run is.";
const CLOSED = "After the run is submitted or failed this is 409 `run_not_open`.";
const OVERSIZE = "A file over its limit is 413 `payload_too_large`, refused while it is read.";
const BOOLEANS =
  "Multipart booleans are the text `true` or `false` (anything else is 422); integers are decimal digits. Leave an optional field out for null.";

/** The design host's collect runs (role `collect`): open, upload assets and captures, fail or submit, read back. */
export const designCollectRouter = designRoutes({
  open: designProcedure
    .meta({
      role: "collect",
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/agent/collect/runs",
        tags,
        summary: "Open a collect run, taking the collection lock",
        description: `At most one run is open at a time: it holds the collection lock as a lease of ${DEFAULT_COLLECT_LEASE_SECONDS} seconds by default (the deployment's \`SHELF_COLLECT_LEASE_SECONDS\`), which each upload starts again; the run's \`lease_expires_at\` says when it ends. While a run's lease lasts, opening another is 409 \`collection_locked\`, whose \`run\` names the holding run (\`id\`, \`opener\`, \`lease_expires_at\`): try again after that time. A run whose lease has ended keeps working until the next open displaces it, ending it \`failed\` with the error \`lease expired\`. Of parallel opens exactly one wins. \`apps\` null or absent: all of them.`,
      },
      errors: ["collection_locked"],
      designExample: {
        build: async ({ db }) => {
          const open = await db.select({ id: collectRuns.id }).from(collectRuns).where(eq(collectRuns.status, "open"));
          for (const { id } of open) await failRunAsOperator(db, id, "example");
          return { body: { viewports: ["desktop", "mobile"], langs: ["ko", "en"] } };
        },
      },
    })
    .input(OpenRunInput)
    .output(RunAnswer)
    .mutation(async ({ ctx, input }) => ({ run: await openRun(ctx.db, agent(ctx.caller), input, lease(ctx)) })),

  show: designProcedure
    .meta({
      role: "collect",
      openapi: {
        method: "GET",
        path: "/api/agent/collect/runs/{run}",
        tags,
        summary: "A collect run's status",
        description: `Status (\`open\`, \`submitted\`, \`replaying\`, \`replayed\`, \`failed\`), counts of captures and assets, the lease's end, the error of a failed run, \`preview\` while the run is open: what submitting it would add, replace and retire in the gallery as it is now (a run changes only what it captured; read it before submitting), and \`replay\`: what the replay added, changed and removed. ${FAMILY}`,
      },
      designExample: {
        target: "family",
        build: async ({ db, agent }) => ({ params: { run: await exampleRun(db, agent) } }),
      },
    })
    .input(RunParam)
    .output(RunAnswer)
    .query(async ({ ctx, input }) => ({ run: await readRun(ctx.db, agent(ctx.caller), input.run) })),

  asset: designProcedure
    .meta({
      role: "collect",
      successStatus: 201,
      alternateSuccess: {
        status: 200,
        description: "This run already has an asset with these bytes: that record is the answer, nothing is stored",
      },
      multipart: { files: { file: { maxBytes: COLLECT_LIMITS.assetBytes } } },
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/api/agent/collect/runs/{run}/assets",
        tags,
        summary: "Upload a CSS or JS file the run's pages used",
        description: `multipart/form-data: \`sha256\`, \`type\` (\`css\` or \`js\`), \`url\` (at most ${COLLECT_LIMITS.url} characters) and \`file\` (at most ${COLLECT_LIMITS.assetBytes} bytes). The server hashes the bytes: a \`sha256\` that does not match is 422. The same bytes again in this run are the same record: 201 the first time, 200 after (the first upload's \`type\` and \`url\` stay). Each upload renews the run's lease. ${OVERSIZE} ${CLOSED} ${FAMILY}`,
      },
      errors: ["run_not_open"],
      designExample: {
        target: "family",
        build: async ({ db, agent }) => ({
          params: { run: await exampleRun(db, agent) },
          body: exampleForm({
            sha256: createHash("sha256").update(EXAMPLE_CSS).digest("hex"),
            type: "css",
            url: "https://accounts.example/app.css",
            file: new Blob([EXAMPLE_CSS], { type: "text/css" }),
          }),
        }),
      },
    })
    .input(AssetInput)
    .output(AssetAnswer)
    .mutation(async ({ ctx, input }) => {
      const { asset, created } = await putAsset(
        ctx.db,
        ctx.delivery.store,
        agent(ctx.caller),
        { run: input.run, sha256: input.sha256, type: input.type, url: input.url, bytes: input.file.bytes },
        lease(ctx),
      );
      ctx.res.status = created ? 201 : 200;
      return { asset };
    }),

  capture: designProcedure
    .meta({
      role: "collect",
      successStatus: 201,
      alternateSuccess: {
        status: 200,
        description: "This run already has a capture under this key with the same image: it is the answer, unchanged",
      },
      multipart: {
        files: { image: { maxBytes: COLLECT_LIMITS.imageBytes }, html: { maxBytes: COLLECT_LIMITS.htmlBytes } },
      },
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/api/agent/collect/runs/{run}/captures",
        tags,
        summary: "Upload one page's capture",
        description: `multipart/form-data. \`key\`: exactly ${COLLECT_LIMITS.key} characters, unique in the run (a digest of the page, viewport, language and signed-in state suits). \`url\`, \`final_url\`, \`message\`: at most ${COLLECT_LIMITS.url} characters. \`image\`: at most ${COLLECT_LIMITS.imageBytes} bytes of PNG, JPEG or WebP, told by its bytes (anything else is 422), whose pixel size is recorded. \`html\`: at most ${COLLECT_LIMITS.htmlBytes} bytes. \`meta\`: JSON text of a \`CaptureMeta\` object, every field optional and unknown fields kept (text that is not JSON, or a known field of the wrong type, is 422 naming it). \`assets\`: JSON text of an array of SHA-256s of assets already uploaded to this run (an unknown one is 422). A capture outside what the run declared when it was opened (its app, \`meta.app\` or else the one its URL names, its \`viewport\`, its \`lang\`) is 422 naming those fields and the declared scope. The same \`key\` again with the same image replaces nothing and answers 200 with the capture already recorded; with another image it is 409 \`capture_key_taken\`. Each upload renews the run's lease. ${BOOLEANS} ${OVERSIZE} ${CLOSED} ${FAMILY}`,
      },
      errors: ["run_not_open", "capture_key_taken"],
      designExample: {
        target: "family",
        build: async ({ db, agent }) => ({
          params: { run: await exampleRun(db, agent) },
          body: exampleForm({
            key: "k".repeat(40),
            url: "https://accounts.example/library",
            viewport: "desktop",
            lang: "en",
            auth: "true",
            outcome: "ok",
            meta: JSON.stringify({ app: "accounts", page: "/library", title: "Library" }),
            image: new Blob([EXAMPLE_PNG], { type: "image/png" }),
          }),
        }),
      },
    })
    .input(CaptureInput)
    .output(CaptureAnswer)
    .mutation(async ({ ctx, input }) => {
      const { capture, created } = await putCapture(
        ctx.db,
        ctx.delivery.store,
        agent(ctx.caller),
        { ...input, image: input.image.bytes, html: input.html?.bytes ?? null },
        lease(ctx),
      );
      ctx.res.status = created ? 201 : 200;
      return { capture };
    }),

  fail: designProcedure
    .meta({
      role: "collect",
      openapi: {
        method: "POST",
        path: "/api/agent/collect/runs/{run}/fail",
        tags,
        summary: "End a run as failed, freeing the collection lock",
        description: `Optional body: \`error\`, why (at most ${COLLECT_LIMITS.message} characters). The run ends \`failed\` and the lock is free at once. ${CLOSED} ${FAMILY}`,
      },
      errors: ["run_not_open"],
      designExample: {
        target: "family",
        build: async ({ db, agent }) => ({ params: { run: await exampleRun(db, agent) }, body: { error: "example" } }),
      },
    })
    .input(FailRunInput)
    .output(RunAnswer)
    .mutation(async ({ ctx, input }) => ({
      run: await failRun(ctx.db, agent(ctx.caller), input.run, input.error),
    })),

  submit: designProcedure
    .meta({
      role: "collect",
      openapi: {
        method: "POST",
        path: "/api/agent/collect/runs/{run}/submit",
        tags,
        summary: "Submit a run: freeze it, free the lock, replay it into the gallery",
        description: `Optional body: \`accounts\` (whether each test account was found, with a \`reason\` of at most ${COLLECT_LIMITS.reason} characters) and \`build_versions\` (each at most ${COLLECT_LIMITS.buildVersion} characters). The run is frozen (\`submitted\`), the collection lock freed, and the run replayed: the answer is the run after its replay, \`replayed\` with \`replay\` saying what was added, changed and removed, or \`failed\` with the replay's \`error\` (the gallery then unchanged); a replay that takes longer than a few seconds goes on after the answer, which is then the run \`replaying\`: read its status until it is \`replayed\` or \`failed\`. ${CLOSED} ${FAMILY}`,
      },
      errors: ["run_not_open"],
      designExample: {
        target: "family",
        build: async ({ db, agent }) => ({ params: { run: await exampleRun(db, agent) }, body: {} }),
      },
    })
    .input(SubmitRunInput)
    .output(RunAnswer)
    .mutation(async ({ ctx, input }) => ({
      run: await submitRun(ctx.db, ctx.delivery.store, agent(ctx.caller), input, { log: ctx.log }),
    })),
});
