import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * The installation's demo secret, kept in the data folder (created on first use, readable by its owner only): the
 * demo key is derived from it, so the web app and the operator CLI print the same key for as long as the folder
 * lives. Deleting the file gives the next seed a new demo key (and revokes the old one).
 */
export async function loadDemoSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, "demo-secret");
  await fs.mkdir(dataDir, { recursive: true });
  try {
    await fs.writeFile(file, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = (await fs.readFile(file, "utf8")).trim();
  if (!/^[0-9a-f]{64}$/.test(secret)) throw new Error(`${file} is not a demo secret: delete it to make a new one.`);
  return secret;
}
