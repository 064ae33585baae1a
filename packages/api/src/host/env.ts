import { type DbEnv, envErrorLine, optionalSetting, readDbEnv, SetupError } from "@shelf/db/env";
import { type LogEnv, readLogEnv } from "@shelf/server/log";
import { z } from "zod";
import { type ApiEnv, readApiEnv } from "../env";

/** What every app's process is configured with (the web app, the design app); each app adds its own port. */
export const HostEnv = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().default("0.0.0.0"),
  /** Seed the demo data set and print what it offers at start. */
  SHELF_DEMO: z.stringbool().default(false),
  SHELF_RATE_LIMIT_NAMESPACE: z
    .string()
    .regex(/^[\w.-]+$/)
    .default("api"),
  /** How long requests in flight may take to finish once SIGTERM arrives. */
  SHELF_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(600).default(10),
  /**
   * Behind a load balancer: how long after SIGTERM the instance keeps serving while /readyz answers 503, so the
   * balancer's health check takes it out of rotation before the listener closes (at least its check interval times
   * its fall count). 0 (one instance, no balancer): the listener closes at once.
   */
  SHELF_DRAIN_SECONDS: z.coerce.number().min(0).max(600).default(0),
  /**
   * How often this instance removes codes, tokens and sessions dead for over a week (one instance at a time);
   * 0 turns it off, e.g. when cron runs the operator CLI's `housekeeping` instead.
   */
  SHELF_HOUSEKEEPING_INTERVAL_MINUTES: z.coerce.number().min(0).max(10_080).default(60),
  /** Connections of this instance's database pool. */
  SHELF_DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** Opens /metrics to whoever sends it as a bearer token; unset, only this machine (loopback) may read it. */
  SHELF_METRICS_TOKEN: optionalSetting().pipe(z.string().min(16, "at least 16 characters").optional()),
});
export type HostEnv = z.infer<typeof HostEnv>;

/** A port setting (`PORT`, `DESIGN_PORT`): 0 picks a free one. */
export const portSetting = (port: number) => z.coerce.number().int().min(0).max(65535).default(port);

/** Reads an app's settings once, at start: the first wrong one stops the start with one line naming it. */
export function readAppSettings<Schema extends z.ZodType<HostEnv>>(
  schema: Schema,
  env: NodeJS.ProcessEnv = process.env,
): { settings: z.infer<Schema>; api: ApiEnv; db: DbEnv; log: LogEnv } {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new SetupError(envErrorLine(parsed.error));
  return { settings: parsed.data, api: readApiEnv(env), db: readDbEnv(env), log: readLogEnv(env) };
}
