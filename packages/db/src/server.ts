import { checkDatabase } from "./check";
import { type EmbeddedOptions, type EmbeddedServer, startEmbeddedPostgres } from "./embedded";
import type { DbEnv } from "./env";
import { runMigrations } from "./migrate";

export { checkDatabase, describeUrl } from "./check";
export { type EmbeddedServer, startEmbeddedPostgres } from "./embedded";
export { type DbEnv, envErrorLine, readDbEnv, SetupError, timeoutsOf } from "./env";
export { createDatabaseHealth, type DatabaseHealth, type DatabaseReport, type HealthOptions } from "./health";
export { migrationsFolder, runMigrations } from "./migrate";
export { databaseUrl } from "./testing/urls";

export type ResolvedDatabase = {
  url: string;
  /** Set when the URL points at the embedded server (started here or joined). */
  embedded: EmbeddedServer | null;
  stop: () => Promise<void>;
};

/**
 * The one way every process finds its database: `DATABASE_URL` when set, else the embedded PostgreSQL on
 * `SHELF_DATA_DIR` (started, or joined when another process runs it). Migrations are applied either way.
 */
export async function resolveDatabase(
  env: DbEnv,
  options: {
    migrate?: boolean;
    log?: (line: string) => void;
    onEvent?: EmbeddedOptions["onEvent"];
    stopping?: EmbeddedOptions["stopping"];
  } = {},
): Promise<ResolvedDatabase> {
  let url = env.DATABASE_URL;
  let embedded: EmbeddedServer | null = null;
  if (url) await checkDatabase(url, env.SHELF_DB_CONNECT_TIMEOUT_SECONDS);
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: env.SHELF_DATA_DIR,
      port: env.SHELF_EMBEDDED_PG_PORT,
      log: options.log,
      onEvent: options.onEvent,
      stopping: options.stopping,
    });
    url = embedded.url;
  }
  if (options.migrate ?? true) await runMigrations(url);
  return { url, embedded, stop: async () => embedded?.stop() };
}
