export { parseCommand, USAGE, UsageError } from "./args";
export { run } from "./cli";
export { type CollectOptions, collect, launchChromium } from "./collect";
export { ASSET_LIMIT, splitCss } from "./css-split";
export {
  FORMAT,
  FORMAT_VERSION,
  loadRunFolder,
  MANIFEST,
  type RunManifest,
  type SavedRun,
  sendRun,
  uploadRunFolder,
} from "./folder";
export { HTML_LIMIT, trimHtml } from "./html-trim";
export { imageInfo } from "./image-info";
export { captureKey } from "./keys";
export type { CollectedAsset, CollectedCapture, RunOptions, RunSink, SubmitReport } from "./run";
export { ACCOUNTS, APP_SPECS, DESIGN } from "./targets";
export { THUMBNAIL_LIMIT } from "./thumbnail";
export { CollectHttpError, CollectionLocked, uploadSink } from "./upload";
