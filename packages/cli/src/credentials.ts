import fs from "node:fs/promises";
import path from "node:path";
import type { CliEnv } from "./env";
import { type Folders, readJson, writeJson } from "./paths";

/** Where a key came from, as `shelf auth status` says it. */
export type KeySource = "environment" | "keychain" | "file";
export type StoredKey = { key: string; source: KeySource; file?: string };

const SERVICE = "shelf";

/** The 0600 file holding keys by service URL, when no keychain answers. */
export const credentialsFile = (dirs: Folders) => path.join(dirs.config, "credentials.json");

type Keyring = {
  get: (baseUrl: string) => Promise<string | null>;
  set: (baseUrl: string, key: string) => Promise<void>;
  remove: (baseUrl: string) => Promise<boolean>;
};

/**
 * The OS keychain through @napi-rs/keyring (the Secret Service on Linux, never the session-only kernel keyring), or
 * null when it is turned off, missing, or does not answer within the timeout: a headless machine must never hang.
 */
async function openKeyring(env: CliEnv): Promise<Keyring | null> {
  if (env.SHELF_KEYRING === "off") return null;
  let AsyncEntry: typeof import("@napi-rs/keyring").AsyncEntry;
  try {
    ({ AsyncEntry } = await import("@napi-rs/keyring"));
  } catch {
    return null;
  }
  const entry = (baseUrl: string) => new AsyncEntry(SERVICE, baseUrl, { linux: { store: "secret-service" } });
  const within = async <T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error("the keychain did not answer in time"));
      }, env.SHELF_KEYRING_TIMEOUT_MS);
      timer.unref();
    });
    try {
      return await Promise.race([work(controller.signal), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    get: (baseUrl) => within((signal) => entry(baseUrl).getPassword(signal)),
    set: (baseUrl, key) => within((signal) => entry(baseUrl).setPassword(key, signal)),
    remove: (baseUrl) => within((signal) => entry(baseUrl).deletePassword(signal)),
  };
}

type CredentialsFile = Record<string, { key: string }>;

/** The key for `baseUrl`: SHELF_API_KEY first, then the keychain, then the 0600 file; null when there is none. */
export async function loadKey(env: CliEnv, dirs: Folders, baseUrl: string): Promise<StoredKey | null> {
  if (env.SHELF_API_KEY) return { key: env.SHELF_API_KEY, source: "environment" };
  const keyring = await openKeyring(env);
  if (keyring) {
    try {
      const key = await keyring.get(baseUrl);
      if (key) return { key, source: "keychain" };
    } catch {
      // No keychain answers here: the file is the store.
    }
  }
  const file = credentialsFile(dirs);
  const stored = (await readJson<CredentialsFile>(file, {}))[baseUrl];
  return stored ? { key: stored.key, source: "file", file } : null;
}

/**
 * Keeps the key in the OS keychain when one answers in time, else in the 0600 file; says which. Either way the
 * other store holds no stale key for this service afterwards.
 */
export async function saveKey(env: CliEnv, dirs: Folders, baseUrl: string, key: string): Promise<StoredKey> {
  const keyring = await openKeyring(env);
  if (keyring) {
    try {
      await keyring.set(baseUrl, key);
      if ((await keyring.get(baseUrl)) === key) {
        await removeFromFile(dirs, baseUrl);
        return { key, source: "keychain" };
      }
    } catch {
      // Fall back to the file below.
    }
  }
  const file = credentialsFile(dirs);
  const all = await readJson<CredentialsFile>(file, {});
  all[baseUrl] = { key };
  await writeJson(file, all, 0o600);
  return { key, source: "file", file };
}

async function removeFromFile(dirs: Folders, baseUrl: string): Promise<boolean> {
  const file = credentialsFile(dirs);
  const all = await readJson<CredentialsFile>(file, {});
  if (!(baseUrl in all)) return false;
  delete all[baseUrl];
  if (Object.keys(all).length === 0) await fs.rm(file, { force: true });
  else await writeJson(file, all, 0o600);
  return true;
}

/** Deletes the stored key for `baseUrl` from the keychain and the file; true when one was there. */
export async function deleteKey(env: CliEnv, dirs: Folders, baseUrl: string): Promise<boolean> {
  let removed = false;
  const keyring = await openKeyring(env);
  if (keyring) {
    try {
      removed = await keyring.remove(baseUrl);
    } catch {
      // Nothing reachable to delete from.
    }
  }
  return (await removeFromFile(dirs, baseUrl)) || removed;
}
