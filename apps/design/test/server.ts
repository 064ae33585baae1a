import path from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningServer, startAppServer } from "@shelf/api/testing/apps";

export type { RunningServer };

export const designDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The design app's production server on a free port, in its own process group (see `startAppServer`). */
export function startDesignServer(env: Record<string, string | undefined>): Promise<RunningServer> {
  return startAppServer({ appDir: designDir, portSetting: "DESIGN_PORT", env });
}
