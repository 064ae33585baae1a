import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadSigningKeyring } from "@shelf/server/signing/keyring";
import { createFilesystemStore } from "@shelf/server/storage/filesystem";
import type { ArtifactStore } from "@shelf/server/storage/store";
import type { Delivery } from "../delivery";
import { createDownloadLinks } from "../delivery/links";

/**
 * Real delivery for tests: a filesystem store in a folder of its own (or the store given, e.g. S3), a signing key
 * set made for it, and links signed with a fresh secret.
 */
export async function createTestDelivery(
  options: { store?: ArtifactStore; appUrl?: string; ttlSeconds?: number } = {},
): Promise<Delivery & { dir: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-delivery-"));
  const store = options.store ?? createFilesystemStore(path.join(dir, "artifacts"));
  const appUrl = options.appUrl ?? "http://shelf.test";
  return {
    dir,
    store,
    links: createDownloadLinks({
      secret: randomBytes(32).toString("hex"),
      appUrl,
      ttlSeconds: options.ttlSeconds ?? 600,
      store,
    }),
    keyring: await loadSigningKeyring(path.join(dir, "signing-keys.json")),
    appUrl,
  };
}

let shared: Promise<Delivery> | undefined;

/** One test delivery per test process, for clients and callers that do not bring their own. */
export function sharedTestDelivery(): Promise<Delivery> {
  shared ??= createTestDelivery();
  return shared;
}

/**
 * A signed link like `url` (a plan's `download_url` of a server whose data folder is `dataDir`, with no
 * `SHELF_DOWNLOAD_SECRET`), signed with that server's secret but expired an hour ago: what a page left open hands on.
 */
export async function expiredLinkLike(url: string, dataDir: string): Promise<string> {
  const { origin, pathname } = new URL(url);
  const [token, filename] = pathname.split("/").slice(4);
  const links = createDownloadLinks({
    secret: (await fs.readFile(path.join(dataDir, "download-secret"), "utf8")).trim(),
    appUrl: origin,
    ttlSeconds: 600,
    store: { presign: async () => null } as unknown as ArtifactStore,
  });
  const ticket = links.verify(token as string, decodeURIComponent(filename as string));
  return (await links.link(ticket, new Date(Date.now() - 3_600_000))).url;
}
