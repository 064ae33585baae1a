import type { ApiEnv, LogEnv } from "@shelf/api";
import { HostEnv, portSetting, readAppSettings } from "@shelf/api/host";
import type { DbEnv } from "@shelf/db/env";
import type { z } from "zod";

/** The design app's settings: what every app has, and its port (its public URL is the API's `SHELF_DESIGN_URL`). */
const DesignEnv = HostEnv.extend({
  DESIGN_PORT: portSetting(3001),
});

export type DesignEnv = z.infer<typeof DesignEnv>;

/** Everything the design app is configured with, read once at start and passed to what needs it. */
export type DesignConfig = { settings: DesignEnv; api: ApiEnv; db: DbEnv; log: LogEnv };

export function readDesignConfig(env: NodeJS.ProcessEnv = process.env): DesignConfig {
  return readAppSettings(DesignEnv, env);
}
