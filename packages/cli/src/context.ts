import { type Config, DEFAULT_BASE_URL, normalizeBaseUrl, readConfig, writeConfig } from "./config";
import { loadKey, type StoredKey } from "./credentials";
import type { CliEnv } from "./env";
import { CliError, ExitCode } from "./errors";
import { type ApiClient, createApiClient, DEFAULT_TIMEOUT_MS } from "./http";
import type { Folders } from "./paths";

export type GlobalOptions = { baseUrl?: string; json?: boolean; timeout?: number };

/** What every command works with: where it talks to, with which key, and how it speaks to the person. */
export type Context = {
  env: CliEnv;
  dirs: Folders;
  config: Config;
  baseUrl: string;
  json: boolean;
  /** How long one request may take before the service counts as unreachable (exit 3). */
  timeoutMs: number;
  /** Whether stderr is a terminal (spinners and progress bars) rather than a log. */
  interactive: boolean;
  /** Progress and notices, on stderr: never mixed into what stdout carries. */
  say: (line: string) => void;
  /** The human answer on stdout; nothing in --json mode (the returned document is printed instead). */
  print: (line: string) => void;
  key: () => Promise<StoredKey | null>;
  /** The API with the key; fails with exit 4 when there is no key. */
  api: () => Promise<ApiClient>;
  anonymousApi: () => ApiClient;
  saveConfig: (change: (config: Config) => void) => Promise<void>;
};

/**
 * Keys are kept per service address, exactly as written (`http://localhost:3000` and `http://127.0.0.1:3000` are two):
 * when there is none for this one, the addresses that have one are worth naming. Null when there are none.
 */
export function signedInElsewhere(config: Config, baseUrl: string): string | null {
  const others = Object.entries(config.services ?? {}).filter(([url]) => url !== baseUrl);
  if (others.length === 0) return null;
  const listed = others.map(([url, state]) => `${url}${state.account_email ? ` (${state.account_email})` : ""}`);
  return `Keys are kept per service address, and this machine has one for ${listed.join(", ")}: use --base-url ${others[0]?.[0]} for ${others.length === 1 ? "it" : "the first"}.`;
}

export async function createContext(env: CliEnv, dirs: Folders, options: GlobalOptions): Promise<Context> {
  const config = await readConfig(dirs);
  let baseUrl: string;
  try {
    baseUrl = normalizeBaseUrl(options.baseUrl ?? env.SHELF_BASE_URL ?? config.base_url ?? DEFAULT_BASE_URL);
  } catch (error) {
    throw new CliError(`--base-url: ${(error as Error).message}.`, ExitCode.usage, "usage");
  }
  const json = options.json === true;
  const timeoutMs = options.timeout === undefined ? DEFAULT_TIMEOUT_MS : options.timeout * 1000;
  const say = (line: string) => void process.stderr.write(`${line}\n`);
  let stored: Promise<StoredKey | null> | undefined;
  const key = () => {
    stored ??= loadKey(env, dirs, baseUrl);
    return stored;
  };
  const context: Context = {
    env,
    dirs,
    config,
    baseUrl,
    json,
    timeoutMs,
    interactive: process.stderr.isTTY === true,
    say,
    print: (line) => {
      if (!json) process.stdout.write(`${line}\n`);
    },
    key,
    api: async () => {
      const found = await key();
      if (!found) {
        throw new CliError(
          "You are not signed in.",
          ExitCode.signInNeeded,
          "missing_api_key",
          ["Run `shelf login` (or set SHELF_API_KEY).", signedInElsewhere(config, baseUrl)].filter(Boolean).join(" "),
        );
      }
      return createApiClient({ baseUrl, key: found.key, say, timeoutMs });
    },
    anonymousApi: () => createApiClient({ baseUrl, key: null, say, timeoutMs }),
    saveConfig: async (change) => {
      const fresh = await readConfig(dirs);
      change(fresh);
      await writeConfig(dirs, fresh);
      Object.assign(config, fresh);
    },
  };
  return context;
}
