import { createHash } from "node:crypto";
import type { CaptureMeta } from "@shelf/api/schemas";
import type { CaptureFields } from "@shelf/api/schemas/capture-fields";
import type { CollectApp, CollectAssetType, CollectLang, CollectViewport } from "@shelf/db/enums";
import type { ImageInfo } from "./image-info";

/** What a run sets out to collect: the body of `POST /api/agent/collect/runs`. */
export type RunOptions = { apps: CollectApp[] | null; viewports: CollectViewport[]; langs: CollectLang[] };

/** One CSS or JS file (or one part of a large stylesheet) as uploaded: its bytes at most 10240. */
export type CollectedAsset = { sha256: string; type: CollectAssetType; url: string; bytes: Buffer };

/** One page at one viewport, language and signed-in state: the fields of a capture upload. */
export type CollectedCapture = CaptureFields & {
  http_status: number | null;
  meta: CaptureMeta;
  image: ImageInfo & { bytes: Buffer };
  html: Buffer | null;
  /** The SHA-256s of the run's assets this page loaded. */
  assets: string[];
};

/** The body of `POST .../submit`. */
export type SubmitReport = {
  accounts: { found: boolean; reason: string | null }[] | null;
  build_versions: string[] | null;
};

/**
 * Where a run goes as it is collected: the design host (the upload client), a folder, or both. Assets arrive before
 * the captures that name them; `submit` or `fail` ends it.
 */
export interface RunSink {
  open(options: RunOptions): Promise<void>;
  asset(asset: CollectedAsset): Promise<void>;
  capture(capture: CollectedCapture): Promise<void>;
  submit(report: SubmitReport): Promise<void>;
  fail(error: string): Promise<void>;
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Several sinks as one, in order (a folder and the design host). */
export function teeSink(sinks: RunSink[]): RunSink {
  return {
    open: async (options) => {
      for (const sink of sinks) await sink.open(options);
    },
    asset: async (asset) => {
      for (const sink of sinks) await sink.asset(asset);
    },
    capture: async (capture) => {
      for (const sink of sinks) await sink.capture(capture);
    },
    submit: async (report) => {
      for (const sink of sinks) await sink.submit(report);
    },
    fail: async (error) => {
      for (const sink of sinks) await sink.fail(error).catch(() => {});
    },
  };
}

export type Log = (line: string) => void;
