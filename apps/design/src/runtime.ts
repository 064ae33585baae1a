import type { Delivery, Logger } from "@shelf/api";
import { runtimeSlot } from "@shelf/api/host/pages";
import type { Database } from "@shelf/db";
import type { DatabaseHealth } from "@shelf/db/server";
import type { DesignConfig } from "./env";

/** What the server started with, for the pages (the gallery reads the database through it). */
export type DesignRuntime = {
  config: DesignConfig;
  /** The design host's public base URL (`SHELF_DESIGN_URL`, else http://localhost:<port>). */
  baseUrl: string;
  db: Database;
  /** How long a render may wait for the database before giving up (the API's deadline). */
  dbDeadlineMs: number;
  /** The database's health, shared with the API: a failure seen by a page makes later requests fail fast too. */
  health: DatabaseHealth;
  /** The artifact store: captures' images and snapshots are read through it. */
  delivery: Delivery;
  log: Logger;
};

const slot = runtimeSlot<DesignRuntime>("design");

export const setRuntime = slot.set;
export const getRuntime = slot.get;
