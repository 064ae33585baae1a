import fs from "node:fs/promises";
import path from "node:path";
import envPaths from "env-paths";
import { CliError, ExitCode } from "./errors";

/** The client's folders (XDG on Linux, Library on macOS, AppData on Windows). */
export type Folders = { config: string; data: string; cache: string };

export function folders(): Folders {
  const paths = envPaths("shelf", { suffix: "" });
  return { config: paths.config, data: paths.data, cache: paths.cache };
}

/**
 * Reads a JSON file, or `fallback` when it does not exist. A file that is not JSON (cut by a full disk, edited by
 * hand) is named, so the person can fix or delete it: never a crash without its path.
 */
export async function readJson<T>(file: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new CliError(
      `${file} is not valid JSON (${(error as Error).message}).`,
      ExitCode.failed,
      "corrupt_file",
      "Fix it, or delete it: shelf then starts it afresh (a deleted credentials file means signing in again).",
      { file },
    );
  }
}

/**
 * Writes a JSON file whole or not at all: a temporary file in the same folder, then a rename. `mode` applies from
 * the first byte (a secret is never readable by others, not even for a moment).
 */
export async function writeJson(file: string, value: unknown, mode = 0o644): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode });
  await fs.chmod(temporary, mode);
  await fs.rename(temporary, file);
}
