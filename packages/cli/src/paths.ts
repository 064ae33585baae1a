import fs from "node:fs/promises";
import path from "node:path";
import envPaths from "env-paths";

/** The client's folders (XDG on Linux, Library on macOS, AppData on Windows). */
export type Folders = { config: string; data: string; cache: string };

export function folders(): Folders {
  const paths = envPaths("shelf", { suffix: "" });
  return { config: paths.config, data: paths.data, cache: paths.cache };
}

/** Reads a JSON file, or `fallback` when it does not exist. */
export async function readJson<T>(file: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw error;
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
