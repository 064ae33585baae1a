import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DomainError } from "@shelf/api";
import { type CollectAgent, failRun, openRun, putAsset, putCapture } from "@shelf/api/routers/design-collect/service";
import { submitRun } from "@shelf/api/routers/design-collect/submit";
import { CaptureFields } from "@shelf/api/schemas/capture-fields";
import { CaptureMeta } from "@shelf/api/schemas/capture-meta";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { captureImageTypes, collectApps, collectLangs, collectViewports } from "@shelf/db/enums";
import type { ArtifactStore } from "@shelf/server/storage/store";
import { and, eq } from "drizzle-orm";
import { z } from "zod";

/**
 * The demo's gallery: a collect run the reference collect agent saved with `--out` (its `run.json` and the files it
 * names), loaded at start through the collect services and the same replay a collector's run goes through, so a
 * machine without Chromium still shows a real gallery. Loaded once: a replayed run of the demo collector is enough.
 */
export const DEMO_COLLECTOR = "demo-collector";
export const DEMO_RUN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "design-run");

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const FileName = z.string().regex(/^[a-z]+\/[0-9a-f]{64}\.[a-z]+$/, "a file of the run folder");

/** What the loader reads of `run.json` (format `shelf-design-collect-run`, version 1; tooling/design-collect). */
const SavedRun = z.object({
  format: z.literal("shelf-design-collect-run"),
  version: z.literal(1),
  status: z.literal("submitted"),
  options: z.object({
    apps: z.array(z.enum(collectApps)).nullable(),
    viewports: z.array(z.enum(collectViewports)).min(1),
    langs: z.array(z.enum(collectLangs)).min(1),
  }),
  assets: z.array(z.object({ sha256: Sha256, type: z.enum(["css", "js"]), url: z.string(), file: FileName })),
  captures: z.array(
    z.object({
      ...CaptureFields.shape,
      http_status: z.number().int().nullable(),
      meta: CaptureMeta,
      image: z.object({ file: FileName, type: z.enum(captureImageTypes) }),
      html: z.object({ file: FileName }).nullable(),
      assets: z.array(Sha256),
    }),
  ),
  submit: z
    .object({
      accounts: z.array(z.object({ found: z.boolean(), reason: z.string().nullable() })).nullable(),
      build_versions: z.array(z.string()).nullable(),
    })
    .nullable(),
});

export type DemoGalleryResult = { runId: number; loaded: boolean } | { runId: null; loaded: false; reason: string };

/**
 * Loads the saved run unless the demo collector's run was replayed already. Another collector holding the lock is
 * not an error: the demo waits for the next start.
 */
export async function seedDemoGallery(
  db: Database,
  store: ArtifactStore,
  options: { dir?: string } = {},
): Promise<DemoGalleryResult> {
  const [done] = await db
    .select({ id: schema.collectRuns.id })
    .from(schema.collectRuns)
    .where(and(eq(schema.collectRuns.openerName, DEMO_COLLECTOR), eq(schema.collectRuns.status, "replayed")))
    .limit(1);
  if (done) return { runId: done.id, loaded: false };
  const dir = options.dir ?? DEMO_RUN_DIR;
  const saved = SavedRun.parse(JSON.parse(await readFile(path.join(dir, "run.json"), "utf8")));
  const bytes = (file: string) => readFile(path.join(dir, file));
  const agent: CollectAgent = { tokenId: null, name: DEMO_COLLECTOR };
  let runId: number;
  try {
    runId = (await openRun(db, agent, saved.options)).id;
  } catch (error) {
    if (error instanceof DomainError && error.code === "collection_locked") {
      return { runId: null, loaded: false, reason: error.message };
    }
    throw error;
  }
  try {
    for (const asset of saved.assets) {
      const { sha256, type, url } = asset;
      await putAsset(db, store, agent, { run: runId, sha256, type, url, bytes: await bytes(asset.file) });
    }
    for (const capture of saved.captures) {
      await putCapture(db, store, agent, {
        ...capture,
        run: runId,
        image: await bytes(capture.image.file),
        html: capture.html ? await bytes(capture.html.file) : null,
      });
    }
  } catch (error) {
    await failRun(db, agent, runId, "the demo's saved run did not load").catch(() => undefined);
    throw error;
  }
  // The start waits for its own replay however long a busy machine makes it: slowness is no failure.
  const run = await submitRun(db, store, agent, { run: runId, ...saved.submit }, { waitMs: Number.POSITIVE_INFINITY });
  if (run.status !== "replayed") throw new Error(`The demo's gallery run ${runId} did not replay: ${run.error}`);
  return { runId, loaded: true };
}
