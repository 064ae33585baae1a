import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import { UsageError } from "./args";

/** A regular file the operator named, checked before anything is stored; streamed, never read whole here. */
export async function openInputFile(file: string, flagName: string) {
  const stat = await fs.stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      error.code === "ENOENT" ? `--${flagName} ${file}: no such file.` : `--${flagName} ${file}: ${error.code}.`,
    );
  });
  if (!stat.isFile()) throw new UsageError(`--${flagName} ${file}: not a regular file.`);
  return { size: stat.size, stream: createReadStream(file) };
}
