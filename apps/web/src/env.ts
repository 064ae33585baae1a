import type { ApiEnv, LogEnv } from "@shelf/api";
import { HostEnv, portSetting, readAppSettings } from "@shelf/api/host";
import { type DbEnv, optionalSetting } from "@shelf/db/env";
import { z } from "zod";

/** The web app's settings: what every app has, its port, and the account pages' own. */
const WebEnv = HostEnv.extend({
  PORT: portSetting(3000),
  /**
   * Seals the session cookies of the account pages; every instance needs the same one. Unset: a secret generated
   * into the data folder (the embedded default, one machine).
   */
  SHELF_AUTH_SECRET: optionalSetting().pipe(z.string().min(32, "at least 32 characters").optional()),
  /** The terms of service the pages link to in their footer; set, sign-up asks to accept them and records it. */
  SHELF_TERMS_URL: optionalSetting().pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** The privacy policy, likewise. */
  SHELF_PRIVACY_URL: optionalSetting().pipe(z.url({ protocol: /^https?$/ }).optional()),
});

export type WebEnv = z.infer<typeof WebEnv>;

/** Everything the web app is configured with, read once at start and passed to what needs it. */
export type WebConfig = { settings: WebEnv; api: ApiEnv; db: DbEnv; log: LogEnv };

export function readWebConfig(env: NodeJS.ProcessEnv = process.env): WebConfig {
  return readAppSettings(WebEnv, env);
}
