import path from "node:path";
import { type Folders, readJson, writeJson } from "./paths";

/** What shelf installed on this machine, by product id: enough to update and uninstall it. */
export type InstallRecord = {
  name: string;
  version: string;
  channel: string | null;
  strategy: string;
  sha256: string;
  /** The verified download, kept for `manual` installs (and reinstalls). */
  file: string;
  /** The folder the install lives in (null for `manual`). */
  installed_to: string | null;
  /** Links made outside it (agent skill targets). */
  links: string[];
  installed_at: string;
};

export const installsFile = (dirs: Folders) => path.join(dirs.data, "installs.json");

export const readInstalls = (dirs: Folders) => readJson<Record<string, InstallRecord>>(installsFile(dirs), {});

export async function recordInstall(dirs: Folders, productId: number, record: InstallRecord | null): Promise<void> {
  const all = await readInstalls(dirs);
  if (record) all[String(productId)] = record;
  else delete all[String(productId)];
  await writeJson(installsFile(dirs), all);
}
