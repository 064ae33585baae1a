import path from "node:path";
import { loadSigningKeyring, type SigningKeyring } from "@shelf/server/signing/keyring";
import { createFilesystemStore } from "@shelf/server/storage/filesystem";
import { createS3Store } from "@shelf/server/storage/s3";
import type { ArtifactStore } from "@shelf/server/storage/store";
import { loadDataFolderSecret } from "../data-secret";
import { type ApiEnv, signingKeySource } from "../env";
import { createDownloadLinks, type DownloadLinks } from "./links";

/** What delivering files needs: where the bytes are, how links to them are signed, and the key that signs feeds. */
export type Delivery = {
  store: ArtifactStore;
  links: DownloadLinks;
  keyring: SigningKeyring;
  /** Public base URL of the app host: feeds, release downloads and signed links point there. */
  appUrl: string;
};

/** The artifact store the settings name: an S3 bucket when SHELF_S3_BUCKET is set, else a folder. */
export function createArtifactStore(env: ApiEnv, dataDir: string): ArtifactStore {
  if (env.SHELF_S3_BUCKET) {
    return createS3Store({
      bucket: env.SHELF_S3_BUCKET,
      endpoint: env.SHELF_S3_ENDPOINT,
      region: env.SHELF_S3_REGION,
      credentials:
        env.SHELF_S3_ACCESS_KEY_ID && env.SHELF_S3_SECRET_ACCESS_KEY
          ? { accessKeyId: env.SHELF_S3_ACCESS_KEY_ID, secretAccessKey: env.SHELF_S3_SECRET_ACCESS_KEY }
          : undefined,
      forcePathStyle: env.SHELF_S3_FORCE_PATH_STYLE,
      prefix: env.SHELF_S3_PREFIX,
    });
  }
  return createFilesystemStore(env.SHELF_ARTIFACTS_DIR ?? path.join(dataDir, "artifacts"));
}

/** The artifact store and the signing key set of the settings: what publishing (and the demo) needs. */
export type DeliveryFiles = { store: ArtifactStore; keyring: SigningKeyring };

export async function loadDeliveryFiles(env: ApiEnv, dataDir: string): Promise<DeliveryFiles> {
  return {
    store: createArtifactStore(env, dataDir),
    keyring: await loadSigningKeyring(signingKeySource(env, dataDir)),
  };
}

/**
 * Everything delivery needs, from the settings and the store and keys already loaded; the link secret defaults to a
 * file in the data folder.
 */
export async function createDelivery(options: {
  env: ApiEnv;
  dataDir: string;
  baseUrl: string;
  files: DeliveryFiles;
}): Promise<Delivery> {
  const { env, dataDir, files } = options;
  const appUrl = env.SHELF_APP_URL ?? options.baseUrl;
  const secret = env.SHELF_DOWNLOAD_SECRET ?? (await loadDataFolderSecret(dataDir, "download-secret"));
  return {
    ...files,
    links: createDownloadLinks({ secret, appUrl, ttlSeconds: env.SHELF_DOWNLOAD_URL_TTL_SECONDS, store: files.store }),
    appUrl,
  };
}

/**
 * The artifact store's readiness for /readyz, asked at most every few seconds (an S3 HEAD per poll would be waste):
 * `{kind, reachable}`.
 */
export function storeReadiness(store: ArtifactStore, cacheMs = 5000) {
  let last: { at: number; reachable: Promise<boolean> } | undefined;
  return async () => {
    if (!last || Date.now() - last.at > cacheMs) last = { at: Date.now(), reachable: store.check() };
    return { kind: store.kind, reachable: await last.reachable };
  };
}
