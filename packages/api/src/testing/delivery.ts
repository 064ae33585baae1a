import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Delivery } from "../delivery";
import { createDownloadLinks } from "../delivery/links";
import { loadSigningKeyring } from "../signing/keyring";
import { createFilesystemStore } from "../storage/filesystem";
import type { ArtifactStore } from "../storage/store";

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
