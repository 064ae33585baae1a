import path from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningServer, startAppServer } from "@shelf/api/testing/apps";

export type { RunningServer };

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The web app's production server on a free port, in its own process group (see `startAppServer`). */
export function startServer(env: Record<string, string | undefined>): Promise<RunningServer> {
  return startAppServer({ appDir: webDir, portSetting: "PORT", env });
}
