import { type Config, DEFAULT_BASE_URL, normalizeBaseUrl, readConfig, writeConfig } from "./config";
import { loadKey, type StoredKey } from "./credentials";
import type { CliEnv } from "./env";
import { CliError, ExitCode } from "./errors";
import { type ApiClient, createApiClient } from "./http";
import type { Folders } from "./paths";

export type GlobalOptions = { baseUrl?: string; json?: boolean };

/** What every command works with: where it talks to, with which key, and how it speaks to the person. */
export type Context = {
  env: CliEnv;
  dirs: Folders;
  config: Config;
  baseUrl: string;
  json: boolean;
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

export async function createContext(env: CliEnv, dirs: Folders, options: GlobalOptions): Promise<Context> {
  const config = await readConfig(dirs);
  let baseUrl: string;
  try {
    baseUrl = normalizeBaseUrl(options.baseUrl ?? env.SHELF_BASE_URL ?? config.base_url ?? DEFAULT_BASE_URL);
  } catch (error) {
    throw new CliError(`--base-url: ${(error as Error).message}.`, ExitCode.usage, "usage");
  }
  const json = options.json === true;
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
          "Run `shelf login` (or set SHELF_API_KEY).",
        );
      }
      return createApiClient({ baseUrl, key: found.key, say });
    },
    anonymousApi: () => createApiClient({ baseUrl, key: null, say }),
    saveConfig: async (change) => {
      const fresh = await readConfig(dirs);
      change(fresh);
      await writeConfig(dirs, fresh);
      Object.assign(config, fresh);
    },
  };
  return context;
}
