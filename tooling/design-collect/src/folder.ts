import fs from "node:fs/promises";
import path from "node:path";
import type { CaptureMeta } from "@shelf/api/schemas";
import { HTML_LIMIT } from "./html-trim";
import { imageInfo } from "./image-info";
import {
  type CollectedAsset,
  type CollectedCapture,
  type Log,
  type RunOptions,
  type RunSink,
  type SubmitReport,
  sha256,
} from "./run";
import { THUMBNAIL_LIMIT } from "./thumbnail";
import { type RunRecord, uploadSink } from "./upload";

/** The manifest's name in a run folder, and what it says it is. */
export const MANIFEST = "run.json";
export const FORMAT = "shelf-design-collect-run";
export const FORMAT_VERSION = 1;
const ASSET_LIMIT = 10_240;

/** Where and how a run was collected (for people reading the folder; the upload does not send it). */
export type RunSource = { target: string | null; design_url: string | null; signed_in: boolean };

export type ManifestAsset = { sha256: string; type: "css" | "js"; url: string; size: number; file: string };

export type ManifestCapture = Omit<CollectedCapture, "image" | "html"> & {
  image: { file: string; sha256: string; type: "png" | "jpeg" | "webp"; width: number; height: number; size: number };
  html: { file: string; sha256: string; size: number } | null;
};

/** `run.json`: the run's options, its assets and captures with every upload field, and the submit report. */
export type RunManifest = {
  format: typeof FORMAT;
  version: typeof FORMAT_VERSION;
  status: "submitted" | "failed";
  error: string | null;
  collected_at: string;
  source: RunSource;
  options: RunOptions;
  assets: ManifestAsset[];
  captures: ManifestCapture[];
  submit: SubmitReport | null;
};

/** A saved run read back: what the upload client sends. */
export type SavedRun = {
  options: RunOptions;
  assets: CollectedAsset[];
  captures: CollectedCapture[];
  submit: SubmitReport;
};

const EXTENSIONS = { css: "css", js: "js", png: "png", jpeg: "jpg", webp: "webp" } as const;

/**
 * Writes a run to a folder as it is collected: `images/`, `html/` and `assets/` hold the bytes, each file named by
 * its SHA-256, and `run.json` (written last, on submit or fail) lists everything with the fields of its upload. A
 * folder that already holds a run is replaced; any other non-empty folder is refused.
 */
export async function folderSink(dir: string, source: RunSource): Promise<RunSink> {
  await prepareFolder(dir);
  const manifest: RunManifest = {
    format: FORMAT,
    version: FORMAT_VERSION,
    status: "submitted",
    error: null,
    collected_at: new Date().toISOString(),
    source,
    options: { apps: null, viewports: [], langs: [] },
    assets: [],
    captures: [],
    submit: null,
  };
  const written = new Set<string>();
  const write = async (file: string, bytes: Uint8Array) => {
    if (written.has(file)) return;
    await fs.writeFile(path.join(dir, file), bytes);
    written.add(file);
  };
  const save = async () => {
    const temporary = path.join(dir, `${MANIFEST}.tmp`);
    await fs.writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
    await fs.rename(temporary, path.join(dir, MANIFEST));
  };

  return {
    async open(options) {
      manifest.options = options;
    },
    async asset(asset) {
      if (manifest.assets.some((saved) => saved.sha256 === asset.sha256)) return;
      const file = `assets/${asset.sha256}.${EXTENSIONS[asset.type]}`;
      await write(file, asset.bytes);
      manifest.assets.push({ sha256: asset.sha256, type: asset.type, url: asset.url, size: asset.bytes.length, file });
    },
    async capture(capture) {
      const { bytes: imageBytes, ...image } = capture.image;
      const imageSha = sha256(imageBytes);
      const imageFile = `images/${imageSha}.${EXTENSIONS[image.type]}`;
      await write(imageFile, imageBytes);
      let html: ManifestCapture["html"] = null;
      if (capture.html !== null) {
        const htmlSha = sha256(capture.html);
        html = { file: `html/${htmlSha}.html`, sha256: htmlSha, size: capture.html.length };
        await write(html.file, capture.html);
      }
      manifest.captures.push({
        ...capture,
        image: { file: imageFile, sha256: imageSha, ...image, size: imageBytes.length },
        html,
      });
    },
    async submit(report) {
      manifest.submit = report;
      await save();
    },
    async fail(error) {
      manifest.status = "failed";
      manifest.error = error;
      await save();
    },
  };
}

async function prepareFolder(dir: string): Promise<void> {
  const entries: string[] = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  if (entries.length > 0 && !entries.includes(MANIFEST)) {
    throw new Error(`${dir} is not empty and holds no saved run (${MANIFEST}): choose an empty or new folder`);
  }
  for (const entry of [MANIFEST, "images", "html", "assets"]) {
    await fs.rm(path.join(dir, entry), { recursive: true, force: true });
  }
  for (const sub of ["images", "html", "assets"]) await fs.mkdir(path.join(dir, sub), { recursive: true });
}

/** Reads a run folder back, checking every file against its SHA-256, type and the contract's limits. */
export async function loadRunFolder(dir: string): Promise<SavedRun> {
  const text = await fs.readFile(path.join(dir, MANIFEST), "utf8").catch(() => {
    throw new Error(`${dir} holds no saved run (${MANIFEST})`);
  });
  const manifest = JSON.parse(text) as RunManifest;
  if (manifest.format !== FORMAT || manifest.version !== FORMAT_VERSION) {
    throw new Error(`${path.join(dir, MANIFEST)} is not a ${FORMAT} manifest of version ${FORMAT_VERSION}`);
  }
  if (manifest.status !== "submitted" || !manifest.submit) {
    throw new Error(`${dir} holds a run that failed (${manifest.error ?? "no reason given"}): it is not uploaded`);
  }
  const read = async (file: string, expectedSha: string, limit: number) => {
    const resolved = path.resolve(dir, file);
    if (!resolved.startsWith(path.resolve(dir) + path.sep)) throw new Error(`${file} is outside ${dir}`);
    const bytes = await fs.readFile(resolved);
    if (sha256(bytes) !== expectedSha) throw new Error(`${file} does not match its SHA-256`);
    if (bytes.length > limit) throw new Error(`${file} is ${bytes.length} bytes, over the limit of ${limit}`);
    return bytes;
  };
  const assets: CollectedAsset[] = [];
  for (const asset of manifest.assets) {
    assets.push({
      sha256: asset.sha256,
      type: asset.type,
      url: asset.url,
      bytes: await read(asset.file, asset.sha256, ASSET_LIMIT),
    });
  }
  const captures: CollectedCapture[] = [];
  for (const capture of manifest.captures) {
    const imageBytes = await read(capture.image.file, capture.image.sha256, THUMBNAIL_LIMIT);
    const info = imageInfo(imageBytes);
    if (!info) throw new Error(`${capture.image.file} is not a PNG, JPEG or WebP image`);
    captures.push({
      ...capture,
      meta: capture.meta as CaptureMeta,
      image: { ...info, bytes: imageBytes },
      html: capture.html ? await read(capture.html.file, capture.html.sha256, HTML_LIMIT) : null,
    });
  }
  return { options: manifest.options, assets, captures, submit: manifest.submit };
}

/** Sends a saved (or just collected) run to a sink: open, every asset, every capture, submit; fail on any error. */
export async function sendRun(run: SavedRun, sink: RunSink, signal?: AbortSignal): Promise<void> {
  await sink.open(run.options);
  try {
    for (const asset of run.assets) {
      signal?.throwIfAborted();
      await sink.asset(asset);
    }
    for (const capture of run.captures) {
      signal?.throwIfAborted();
      await sink.capture(capture);
    }
    signal?.throwIfAborted();
    await sink.submit(run.submit);
  } catch (error) {
    await sink.fail((error as Error).message).catch(() => {});
    throw error;
  }
}

/**
 * The loader: reads a run folder and uploads it to a design host with a token, through the same upload client the
 * collector uses. Resolves with the run as the submit answered it (replayed, or failed with the replay's error).
 */
export async function uploadRunFolder(
  dir: string,
  options: { designUrl: string; token: string; log?: Log; signal?: AbortSignal; sleep?: (ms: number) => Promise<void> },
): Promise<RunRecord> {
  const run = await loadRunFolder(dir);
  const sink = uploadSink({
    designUrl: options.designUrl,
    token: options.token,
    log: options.log ?? (() => {}),
    sleep: options.sleep,
  });
  await sendRun(run, sink, options.signal);
  return sink.submitted as RunRecord;
}
