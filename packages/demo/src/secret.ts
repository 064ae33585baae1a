import { loadDataFolderSecret } from "@shelf/api/data-secret";

/**
 * The installation's demo secret, kept in the data folder: the demo key is derived from it, so the web app and the
 * operator CLI print the same key for as long as the folder lives. Deleting the file gives the next seed a new demo
 * key (and revokes the old one).
 */
export function loadDemoSecret(dataDir: string): Promise<string> {
  return loadDataFolderSecret(dataDir, "demo-secret");
}
