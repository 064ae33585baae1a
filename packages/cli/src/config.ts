import path from "node:path";
import { type Folders, readJson, writeJson } from "./paths";

export const DEFAULT_BASE_URL = "http://localhost:3000";

/** What the client remembers about one service (never the key itself). */
export type ServiceState = {
  account_email?: string;
  key_prefix?: string;
  /** Where the key is kept: the OS keychain or the 0600 file. */
  storage?: "keychain" | "file";
  signed_in_at?: string;
};

export type Config = {
  /** The service used when neither --base-url nor SHELF_BASE_URL names one (set by `shelf login --base-url`). */
  base_url?: string;
  /** A random id for this machine, sent with license checks; made once. */
  device_id?: string;
  services?: Record<string, ServiceState>;
  /** Whether the person agreed to share daily usage (`shelf usage consent on`); off until they do. */
  usage_consent?: boolean;
  /** Whether the client may send its own crashes to the service (`shelf report crashes on`); off until then. */
  crash_reports?: boolean;
};

export const configFile = (dirs: Folders) => path.join(dirs.config, "config.json");

export const readConfig = (dirs: Folders) => readJson<Config>(configFile(dirs), {});

export const writeConfig = (dirs: Folders, config: Config) => writeJson(configFile(dirs), config, 0o600);

/** A service's URL as the client keys its state by: the origin plus any path, without a trailing slash. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not a URL (e.g. https://shelf.example)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`"${raw}" is not an http(s) URL`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
