import { createHash } from "node:crypto";
import { type Database, type Executor, schema } from "@shelf/db";
import type { CaptureOutcome, CollectAssetType, CollectLang, CollectViewport } from "@shelf/db/enums";
import type { ArtifactStore, StoredObject } from "@shelf/server/storage/store";
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { appOf } from "../../design-gallery/pages";
import { previewReplay } from "../../design-gallery/preview";
import { DomainError, type FieldErrors, ValidationError } from "../../errors";
import { type CaptureMeta, COLLECT_CONTENT_TYPES } from "../../schemas/capture-meta";
import { isoOrNull } from "../../schemas/common";
import { readImageHeader } from "./image-header";
import {
  COLLECT_LIMITS,
  type CollectAssetData,
  type CollectCaptureData,
  type CollectRunData,
  DEFAULT_COLLECT_LEASE_SECONDS,
  type OpenRunInput,
} from "./schemas";

const { collectRuns, collectAssets, collectCaptures } = schema;

/**
 * Who collects: a design agent token with the collect role. Its name makes its family: tokens of one name (an
 * operator rotates a token by issuing a new one under the same name) see the same runs; any other token sees none.
 * A run the server makes itself (the demo's) names no token (`tokenId` null), only a name.
 */
export type CollectAgent = { tokenId: number | null; name: string };

export type CollectOptions = {
  /** How long the collection lock lasts without an upload (each upload starts it again); 600 seconds by default. */
  leaseSeconds?: number;
};

type RunRow = typeof collectRuns.$inferSelect;
type AssetRow = typeof collectAssets.$inferSelect;
type CaptureRow = typeof collectCaptures.$inferSelect;

const leaseEnd = (options: CollectOptions) =>
  sql`now() + make_interval(secs => ${options.leaseSeconds ?? DEFAULT_COLLECT_LEASE_SECONDS})`;

const sha256Of = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

// Written out in full: drizzle leaves a column in a select's SQL unqualified, which a subquery would read as its own.
const countCaptures = sql<number>`(select count(*) from collect_captures c where c.run_id = collect_runs.id)::int`;
const countAssets = sql<number>`(select count(*) from collect_assets a where a.run_id = collect_runs.id)::int`;

/** A run's row with how many captures and assets it holds. */
export function runsWithCounts(db: Executor) {
  return db.select({ run: collectRuns, captures: countCaptures, assets: countAssets }).from(collectRuns);
}

export function runData({ run, captures, assets }: { run: RunRow; captures: number; assets: number }): CollectRunData {
  return {
    id: run.id,
    status: run.status,
    apps: run.apps,
    viewports: run.viewports,
    langs: run.langs,
    opener: run.openerName,
    lease_expires_at: run.leaseExpiresAt.toISOString(),
    error: run.error,
    counts: { captures, assets },
    accounts: run.accounts,
    build_versions: run.buildVersions,
    replay: run.replay,
    preview: null,
    created_at: run.createdAt.toISOString(),
    submitted_at: isoOrNull(run.submittedAt),
    finished_at: isoOrNull(run.finishedAt),
  };
}

function assetData(row: AssetRow): CollectAssetData {
  return {
    id: row.id,
    sha256: row.sha256,
    type: row.type,
    url: row.url,
    size: row.size,
    created_at: row.createdAt.toISOString(),
  };
}

function captureData(row: CaptureRow): CollectCaptureData {
  return {
    id: row.id,
    key: row.key,
    url: row.url,
    viewport: row.viewport,
    lang: row.lang,
    auth: row.auth,
    outcome: row.outcome,
    message: row.message,
    login_stage: row.loginStage,
    saved_state: row.savedState,
    final_url: row.finalUrl,
    http_status: row.httpStatus,
    meta: row.meta,
    image: {
      type: row.imageType,
      width: row.imageWidth,
      height: row.imageHeight,
      size: row.imageSize,
      sha256: row.imageSha256,
    },
    html: row.htmlSha256 !== null && row.htmlSize !== null ? { size: row.htmlSize, sha256: row.htmlSha256 } : null,
    assets: row.assets,
    created_at: row.createdAt.toISOString(),
  };
}

export const visibleTo = (agent: CollectAgent, runId: number) =>
  and(eq(collectRuns.id, runId), eq(collectRuns.openerName, agent.name));

export const notFound = (runId: number) => new DomainError("not_found", `No collect run ${runId}.`);

/** The run as its opener's family sees it; any other token gets 404, exactly as for a run that does not exist. */
/** A run's status; while it is open, with what submitting it would do to the gallery now. */
export async function readRun(db: Executor, agent: CollectAgent, runId: number): Promise<CollectRunData> {
  const [row] = await runsWithCounts(db).where(visibleTo(agent, runId));
  if (!row) throw notFound(runId);
  const run = runData(row);
  return run.status === "open" ? { ...run, preview: await previewReplay(db, runId) } : run;
}

/** Why a run takes nothing more: 404 when the agent cannot see it, else 409 naming its status. */
export async function refuseClosed(db: Executor, agent: CollectAgent, runId: number): Promise<never> {
  const [run] = await db.select({ status: collectRuns.status }).from(collectRuns).where(visibleTo(agent, runId));
  if (!run) throw notFound(runId);
  throw new DomainError(
    "run_not_open",
    `Collect run ${runId} is ${run.status}: it takes no more uploads, and cannot be failed or submitted again.`,
    { run: { id: runId, status: run.status } },
  );
}

type DeclaredScope = Pick<RunRow, "apps" | "viewports" | "langs">;

/**
 * The run's declared scope, if it is the agent's and still open (404 or 409 otherwise): checked before any bytes are
 * stored.
 */
async function openRunOf(db: Executor, agent: CollectAgent, runId: number): Promise<DeclaredScope> {
  const [run] = await db
    .select({
      status: collectRuns.status,
      apps: collectRuns.apps,
      viewports: collectRuns.viewports,
      langs: collectRuns.langs,
    })
    .from(collectRuns)
    .where(visibleTo(agent, runId));
  if (run?.status !== "open") return refuseClosed(db, agent, runId);
  return run;
}

/**
 * A capture must lie within what its run declared when it was opened (apps, viewports, languages): 422 naming the
 * fields outside it and the declared scope. The app is `meta.app`, else the one its URL names (as the replay reads it).
 */
function assertInScope(scope: DeclaredScope, upload: CaptureUpload) {
  const errors: FieldErrors = {};
  const outside = (what: string, value: string, declared: readonly string[]) =>
    `${value} is outside the run's declared ${what} (${declared.join(", ")}); open a run that declares it`;
  if (!scope.viewports.includes(upload.viewport)) {
    errors.viewport = [outside("viewports", upload.viewport, scope.viewports)];
  }
  if (!scope.langs.includes(upload.lang)) errors.lang = [outside("languages", upload.lang, scope.langs)];
  const app = appOf(upload.url, upload.meta?.app);
  if (scope.apps && !(scope.apps as readonly string[]).includes(app)) {
    errors[upload.meta?.app ? "meta.app" : "url"] = [outside("apps", `the app ${app}`, scope.apps)];
  }
  if (Object.keys(errors).length === 0) return;
  const apps = scope.apps ? scope.apps.join(", ") : "all";
  throw new ValidationError(
    errors,
    `The capture is outside its run's declared scope: apps ${apps}; viewports ${scope.viewports.join(", ")}; languages ${scope.langs.join(", ")}.`,
  );
}

/**
 * Starts the run's lease again (every upload does), under the run's row lock: a submit, a fail or a displacing open
 * waits for the upload's transaction, and an upload after them finds the run closed (409).
 */
async function renewLease(tx: Executor, agent: CollectAgent, runId: number, options: CollectOptions): Promise<void> {
  const [renewed] = await tx
    .update(collectRuns)
    .set({ leaseExpiresAt: leaseEnd(options) })
    .where(and(visibleTo(agent, runId), eq(collectRuns.status, "open")))
    .returning({ id: collectRuns.id });
  if (!renewed) await refuseClosed(tx, agent, runId);
}

/**
 * `POST /api/agent/collect/runs`: opens a run holding the collection lock (the partial unique index
 * `collect_runs_one_open`: one open run at most). In the same transaction an open run whose lease has ended is
 * displaced, ended failed with the error "lease expired". While a live run holds the lock: 409 `collection_locked`,
 * naming that run and when its lease ends. Parallel opens meet at the index, so exactly one wins.
 */
export async function openRun(
  db: Database,
  agent: CollectAgent,
  input: OpenRunInput,
  options: CollectOptions = {},
): Promise<CollectRunData> {
  // A holder that ends between the failed insert and the read of it: try again (a handful of times at most).
  for (let attempt = 0; attempt < 5; attempt++) {
    const outcome = await db.transaction(async (tx) => {
      await tx
        .update(collectRuns)
        .set({ status: "failed", error: "lease expired", finishedAt: sql`now()` })
        .where(and(eq(collectRuns.status, "open"), lte(collectRuns.leaseExpiresAt, sql`now()`)));
      const [opened] = await tx
        .insert(collectRuns)
        .values({
          apps: input.apps,
          viewports: input.viewports,
          langs: input.langs,
          openerTokenId: agent.tokenId,
          openerName: agent.name,
          leaseExpiresAt: leaseEnd(options),
        })
        .onConflictDoNothing()
        .returning({ id: collectRuns.id });
      if (opened) return { opened: opened.id };
      const [holder] = await tx.select().from(collectRuns).where(eq(collectRuns.status, "open"));
      return { holder };
    });
    if (outcome.opened !== undefined) return readRun(db, agent, outcome.opened);
    const holder = outcome.holder;
    if (holder) {
      const leaseEndsAt = holder.leaseExpiresAt.toISOString();
      throw new DomainError(
        "collection_locked",
        `Collect run ${holder.id}, opened by ${holder.openerName}, holds the collection lock until ${leaseEndsAt} (each of its uploads extends it). Open again after that.`,
        {
          run: {
            id: holder.id,
            status: holder.status,
            opener: holder.openerName,
            created_at: holder.createdAt.toISOString(),
            lease_expires_at: leaseEndsAt,
          },
        },
      );
    }
  }
  throw new DomainError("conflict", "The collection lock changed hands while this run was opened: open again.");
}

/** An asset as uploaded: its bytes and what the collector says of them. */
export type AssetUpload = { run: number; sha256: string; type: CollectAssetType; url: string; bytes: Uint8Array };

/**
 * `POST .../runs/{run}/assets`: a CSS or JS file the run's pages used. The server hashes the bytes and refuses a
 * `sha256` that does not match (422). The same bytes again in the same run are the same record (`created` false,
 * answered 200), whatever `type` and `url` the repeat names; new bytes are stored, then recorded (201).
 */
export async function putAsset(
  db: Database,
  store: ArtifactStore,
  agent: CollectAgent,
  upload: AssetUpload,
  options: CollectOptions = {},
): Promise<{ asset: CollectAssetData; created: boolean }> {
  if (upload.bytes.byteLength > COLLECT_LIMITS.assetBytes) {
    throw new DomainError("payload_too_large", `An asset file is at most ${COLLECT_LIMITS.assetBytes} bytes.`);
  }
  const sha256 = sha256Of(upload.bytes);
  if (sha256 !== upload.sha256.toLowerCase()) {
    throw new ValidationError({ sha256: [`does not match the file, whose SHA-256 is ${sha256}`] });
  }
  await openRunOf(db, agent, upload.run);
  const sameAsset = and(eq(collectAssets.runId, upload.run), eq(collectAssets.sha256, sha256));
  const [known] = await db.select().from(collectAssets).where(sameAsset);
  if (known) {
    await renewLease(db, agent, upload.run, options);
    return { asset: assetData(known), created: false };
  }
  const stored = await store.put([upload.bytes], COLLECT_CONTENT_TYPES[upload.type]);
  const recorded = await keepOrRemove(store, [stored], () =>
    db.transaction(async (tx) => {
      await renewLease(tx, agent, upload.run, options);
      const [inserted] = await tx
        .insert(collectAssets)
        .values({
          runId: upload.run,
          sha256,
          type: upload.type,
          url: upload.url,
          size: stored.size,
          objectKey: stored.key,
        })
        .onConflictDoNothing({ target: [collectAssets.runId, collectAssets.sha256] })
        .returning();
      if (inserted) return { row: inserted, created: true };
      // The same asset sent in parallel: the other request's record is this one's too.
      const [other] = await tx.select().from(collectAssets).where(sameAsset);
      return { row: other as AssetRow, created: false };
    }),
  );
  return { asset: assetData(recorded.row), created: recorded.created };
}

/**
 * Runs `record` with objects just stored: when it throws, or records nothing new (`created` false, another request's
 * record stands), the objects are removed, so no stored bytes are left that no row names.
 */
async function keepOrRemove<T extends { created: boolean }>(
  store: ArtifactStore,
  objects: (StoredObject | null)[],
  record: () => Promise<T>,
): Promise<T> {
  const remove = () => Promise.all(objects.map((object) => (object ? store.remove(object.key) : undefined)));
  let result: T;
  try {
    result = await record();
  } catch (error) {
    await remove();
    throw error;
  }
  if (!result.created) await remove();
  return result;
}

/** A capture as uploaded: the page's thumbnail, trimmed HTML and metadata, under a key of the collector's. */
export type CaptureUpload = {
  run: number;
  key: string;
  url: string;
  viewport: CollectViewport;
  lang: CollectLang;
  auth: boolean;
  outcome: CaptureOutcome;
  message?: string | null;
  login_stage?: boolean | null;
  saved_state?: boolean | null;
  final_url?: string | null;
  http_status?: number | null;
  meta?: CaptureMeta | null;
  image: Uint8Array;
  html?: Uint8Array | null;
  /** SHA-256s of assets already uploaded to this run. */
  assets?: string[] | null;
};

/** At most this many unknown assets are named in the refusal. */
const NAMED_UNKNOWN = 5;

/**
 * `POST .../runs/{run}/captures`: one page at one viewport, language and signed-in state. The image must be a PNG,
 * JPEG or WebP by its bytes (422 otherwise), and its pixel size is read from them; `assets` must name assets of this
 * run (422 naming the unknown ones). The same key again with the same image replaces nothing: the capture already
 * recorded is the answer (`created` false, 200); the key with another image is 409 `capture_key_taken`.
 */
export async function putCapture(
  db: Database,
  store: ArtifactStore,
  agent: CollectAgent,
  upload: CaptureUpload,
  options: CollectOptions = {},
): Promise<{ capture: CollectCaptureData; created: boolean }> {
  if (upload.image.byteLength > COLLECT_LIMITS.imageBytes) {
    throw new DomainError("payload_too_large", `A capture's image is at most ${COLLECT_LIMITS.imageBytes} bytes.`);
  }
  if (upload.html && upload.html.byteLength > COLLECT_LIMITS.htmlBytes) {
    throw new DomainError("payload_too_large", `A capture's HTML is at most ${COLLECT_LIMITS.htmlBytes} bytes.`);
  }
  const header = readImageHeader(Buffer.from(upload.image.buffer, upload.image.byteOffset, upload.image.byteLength));
  if (!header) throw new ValidationError({ image: ["must be a PNG, JPEG or WebP image (told by its bytes)"] });
  const imageSha256 = sha256Of(upload.image);
  assertInScope(await openRunOf(db, agent, upload.run), upload);

  const assets = [...new Set((upload.assets ?? []).map((sha256) => sha256.toLowerCase()))];
  if (assets.length > 0) {
    const known = await db
      .select({ sha256: collectAssets.sha256 })
      .from(collectAssets)
      .where(and(eq(collectAssets.runId, upload.run), inArray(collectAssets.sha256, assets)));
    const knownSet = new Set(known.map((row) => row.sha256));
    const unknown = assets.filter((sha256) => !knownSet.has(sha256));
    if (unknown.length > 0) {
      const named = unknown.slice(0, NAMED_UNKNOWN).join(", ");
      const more = unknown.length > NAMED_UNKNOWN ? ` and ${unknown.length - NAMED_UNKNOWN} more` : "";
      throw new ValidationError({
        assets: [`names assets not uploaded to this run: ${named}${more} (upload them first)`],
      });
    }
  }

  const sameKey = and(eq(collectCaptures.runId, upload.run), eq(collectCaptures.key, upload.key));
  const settle = (existing: CaptureRow) => {
    if (existing.imageSha256 !== imageSha256) {
      throw new DomainError(
        "capture_key_taken",
        `Collect run ${upload.run} already has capture ${upload.key} with another image (sha256 ${existing.imageSha256}); a capture is never replaced: send it under a new key.`,
        { capture: { id: existing.id, key: existing.key, image: { sha256: existing.imageSha256 } } },
      );
    }
    return { row: existing, created: false };
  };
  const [taken] = await db.select().from(collectCaptures).where(sameKey);
  if (taken) {
    const repeat = settle(taken);
    await renewLease(db, agent, upload.run, options);
    return { capture: captureData(repeat.row), created: false };
  }

  const image = await store.put([upload.image], COLLECT_CONTENT_TYPES[header.type]);
  let html: StoredObject | null = null;
  try {
    html = upload.html ? await store.put([upload.html], COLLECT_CONTENT_TYPES.html) : null;
  } catch (error) {
    await store.remove(image.key);
    throw error;
  }
  const recorded = await keepOrRemove(store, [image, html], () =>
    db.transaction(async (tx) => {
      await renewLease(tx, agent, upload.run, options);
      const [inserted] = await tx
        .insert(collectCaptures)
        .values({
          runId: upload.run,
          key: upload.key,
          url: upload.url,
          viewport: upload.viewport,
          lang: upload.lang,
          auth: upload.auth,
          outcome: upload.outcome,
          message: upload.message ?? null,
          loginStage: upload.login_stage ?? null,
          savedState: upload.saved_state ?? null,
          finalUrl: upload.final_url ?? null,
          httpStatus: upload.http_status ?? null,
          meta: upload.meta ?? null,
          imageSha256,
          imageType: header.type,
          imageWidth: header.width,
          imageHeight: header.height,
          imageSize: image.size,
          imageKey: image.key,
          htmlSha256: html?.sha256 ?? null,
          htmlSize: html?.size ?? null,
          htmlKey: html?.key ?? null,
          assets,
        })
        .onConflictDoNothing({ target: [collectCaptures.runId, collectCaptures.key] })
        .returning();
      if (inserted) return { row: inserted, created: true };
      // The same key sent in parallel: the same image is that capture; another image is refused.
      const [other] = await tx.select().from(collectCaptures).where(sameKey);
      return settle(other as CaptureRow);
    }),
  );
  return { capture: captureData(recorded.row), created: recorded.created };
}

/** `POST .../runs/{run}/fail`: the collector gives up; the run ends failed and the collection lock is free. */
export async function failRun(
  db: Database,
  agent: CollectAgent,
  runId: number,
  error?: string | null,
): Promise<CollectRunData> {
  const [ended] = await db
    .update(collectRuns)
    .set({ status: "failed", error: error || "ended by the collector", finishedAt: sql`now()` })
    .where(and(visibleTo(agent, runId), eq(collectRuns.status, "open")))
    .returning({ id: collectRuns.id });
  if (!ended) await refuseClosed(db, agent, runId);
  return readRun(db, agent, runId);
}
