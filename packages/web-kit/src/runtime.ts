import type { Delivery, Logger } from "@shelf/api";
import type { RunningHost } from "@shelf/api/host";
import type { Database } from "@shelf/db";
import type { DatabaseHealth } from "@shelf/db/server";

/** What the server started with, for an app's pages: what both apps have (each adds its own). */
export type PagesRuntime<Config> = {
  config: Config;
  /** The app's public base URL links are built from (its setting, else http://localhost:<port>). */
  baseUrl: string;
  db: Database;
  /** How long a render may wait for the database before giving up (the API's deadline). */
  dbDeadlineMs: number;
  /** The database's health, shared with the API: a failure seen by a page makes later requests fail fast too. */
  health: DatabaseHealth;
  /** The artifact store, links and signing keys: the pages' images are read through it. */
  delivery: Delivery;
  log: Logger;
};

/** The running start-up's part of the pages' runtime. */
export function pagesRuntimeOf(host: RunningHost): Omit<PagesRuntime<unknown>, "config"> {
  return {
    baseUrl: host.baseUrl,
    db: host.db,
    dbDeadlineMs: host.dbDeadlineMs,
    health: host.health,
    delivery: host.delivery,
    log: host.log,
  };
}
