import type { DbEnv } from "@shelf/db/server";
import {
  type HostedApp,
  type HostServices,
  type StartBasics,
  type StartedHost,
  startHost as startKitHost,
} from "@shelf/server/host/start";
import type { LogEnv } from "@shelf/server/log";
import type { EdgeOptions } from "../api-edge";
import { createDelivery, type Delivery, type DeliveryFiles, loadDeliveryFiles, storeReadiness } from "../delivery";
import type { ApiEnv } from "../env";
import { scheduleHousekeeping } from "../housekeeping";
import type { HostEnv } from "./env";
import { createUnavailablePage } from "./unavailable-page";

/** Every app's configuration: the settings every app has (its own port aside), the API's, the database's, the log's. */
export type HostConfig = { settings: HostEnv; api: ApiEnv; db: DbEnv; log: LogEnv };

/** What the API serves with that needs no URL, loaded before the server listens. */
type Loaded = {
  /** The artifact store and the signing keys. */
  files: DeliveryFiles;
};

/** What the API serves with once the public base URL is known. */
type Made = { delivery: Delivery };

/** What the start-up has made before the server listens: the app's `prepare` gets it. */
export type HostBasics = StartBasics<HostConfig, Loaded>;

/** What every edge of an app is made with (`createEdge`'s options but the router, credentials and document). */
export type EdgeBasics = Required<
  Pick<EdgeOptions, "db" | "dbDeadlineMs" | "health" | "log" | "baseUrl" | "keyBrand" | "rateLimiter" | "routeLimiter">
> & { trustProxy: boolean; delivery: Delivery };

/** The start-up once the server listens: the port, and so the public base URL, are known. */
export type RunningHost = StartedHost<HostConfig, Loaded, Made, EdgeBasics>;

/** An app on the API's start-up: the kit's, with the outage page's words read from the app's messages. */
export type HostApp<Prepared> = Omit<
  HostedApp<HostConfig, Prepared, HostBasics, RunningHost>,
  "settings" | "unavailable"
> & {
  /** The app's messages (`<locale>.json`), whose `unavailable` words the outage page says. */
  messagesDir: string;
};

/**
 * The one start-up of every app's process: the HTTP kit's (`@shelf/server/host/start`: the database, pool, limits,
 * logs, metrics, the edge server and its operator's endpoints, the pages, the graceful stop), handed what is the
 * API's: the artifact store and signing keys before the server listens and the delivery links once it does (the
 * store's readiness among /readyz's checks), what every edge is made with, and housekeeping. The app gives only what
 * is its own: its port and URL, its edges, its pages.
 */
export function startHost<Prepared = undefined>(app: HostApp<Prepared>): Promise<void> {
  const { messagesDir, ...own } = app;
  const { settings, api } = app.config;
  return startKitHost(
    {
      ...own,
      settings: {
        ...settings,
        SHELF_RATE_LIMIT_PER_MINUTE: api.SHELF_RATE_LIMIT_PER_MINUTE,
        REDIS_URL: api.REDIS_URL,
        SHELF_TRUST_PROXY: api.SHELF_TRUST_PROXY,
        SHELF_LEGACY_URL: api.SHELF_LEGACY_URL,
      },
      unavailable: createUnavailablePage(messagesDir),
    },
    apiServices(app.config),
  );
}

/** What the API hands the start-up: delivery in its two steps around `listen`, its edges' services, housekeeping. */
function apiServices(config: HostConfig): HostServices<HostConfig, Loaded, Made, EdgeBasics> {
  const { settings, api, db: dbEnv } = config;
  return {
    load: async () => ({ files: await loadDeliveryFiles(api, dbEnv.SHELF_DATA_DIR) }),
    readiness: ({ files }) => ({ artifact_store: storeReadiness(files.store) }),
    make: async ({ files, baseUrl }) => ({
      delivery: await createDelivery({ env: api, dataDir: dbEnv.SHELF_DATA_DIR, baseUrl, files }),
    }),
    edge: ({ delivery }, core) => ({ ...core, delivery, keyBrand: api.SHELF_KEY_PREFIX }),
    jobs: ({ db, log }) => {
      const minutes = settings.SHELF_HOUSEKEEPING_INTERVAL_MINUTES;
      return minutes > 0 ? [scheduleHousekeeping(db, { intervalMs: minutes * 60_000, log })] : [];
    },
  };
}
