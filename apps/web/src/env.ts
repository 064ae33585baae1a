import { type ApiEnv, type LogEnv, readApiEnv, readLogEnv } from "@shelf/api";
import { type DbEnv, envErrorLine, optionalSetting, readDbEnv, SetupError } from "@shelf/db/env";
import { z } from "zod";

const WebEnv = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /** Seed the demo data set and print a demo key at start. */
  SHELF_DEMO: z.stringbool().default(false),
  SHELF_RATE_LIMIT_NAMESPACE: z
    .string()
    .regex(/^[\w.-]+$/)
    .default("api"),
  /** How long requests in flight may take to finish once SIGTERM arrives. */
  SHELF_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(600).default(10),
  /**
   * How often this instance removes codes, tokens and sessions dead for over a week (one instance at a time);
   * 0 turns it off, e.g. when cron runs the operator CLI's `housekeeping` instead.
   */
  SHELF_HOUSEKEEPING_INTERVAL_MINUTES: z.coerce.number().min(0).max(10_080).default(60),
  /** Connections of this instance's database pool. */
  SHELF_DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Seals the session cookies of the account pages; every instance needs the same one. Unset: a secret generated
   * into the data folder (the embedded default, one machine).
   */
  SHELF_AUTH_SECRET: optionalSetting().pipe(z.string().min(32, "at least 32 characters").optional()),
  /** Opens /metrics to whoever sends it as a bearer token; unset, only this machine (loopback) may read it. */
  SHELF_METRICS_TOKEN: optionalSetting().pipe(z.string().min(16, "at least 16 characters").optional()),
});

export type WebEnv = z.infer<typeof WebEnv>;

/** Everything the web app is configured with, read once at start and passed to what needs it. */
export type WebConfig = { web: WebEnv; api: ApiEnv; db: DbEnv; log: LogEnv };

export function readWebConfig(env: NodeJS.ProcessEnv = process.env): WebConfig {
  const parsed = WebEnv.safeParse(env);
  if (!parsed.success) throw new SetupError(envErrorLine(parsed.error));
  return { web: parsed.data, api: readApiEnv(env), db: readDbEnv(env), log: readLogEnv(env) };
}
