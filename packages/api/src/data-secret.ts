import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { SetupError } from "@shelf/db/env";

/**
 * A 256-bit secret kept in the data folder, created on first use (exclusively, readable by its owner only), so every
 * process on this data folder agrees on it for as long as the folder lives: the embedded default for what a
 * deployment of several instances sets in its environment.
 */
export async function loadDataFolderSecret(dataDir: string, name: string): Promise<string> {
  const file = path.join(dataDir, name);
  await fs.mkdir(dataDir, { recursive: true });
  try {
    await fs.writeFile(file, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = (await fs.readFile(file, "utf8")).trim();
  if (!/^[0-9a-f]{64}$/.test(secret)) throw new SetupError(`${file} is not a secret: delete it to make a new one.`);
  return secret;
}
