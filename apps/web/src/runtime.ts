import type { Delivery, GuessLimits, Logger, Mailer, OAuthSettings, PublicDisclosureData } from "@shelf/api";
import { runtimeSlot } from "@shelf/api/host/pages";
import type { Database } from "@shelf/db";
import type { DatabaseHealth } from "@shelf/db/server";
import type { WebConfig } from "./env";

/** What the server started with, for the pages. */
export type WebRuntime = {
  config: WebConfig;
  /** The public base URL links are built from. */
  baseUrl: string;
  db: Database;
  /** How long a render may wait for the database before giving up (the API's deadline). */
  dbDeadlineMs: number;
  /** The database's health, shared with the API: a failure seen by a page makes later requests fail fast too. */
  health: DatabaseHealth;
  /** The artifact store, links and signing keys: the pages' images are content assets read through it. */
  delivery: Delivery;
  log: Logger;
  /** Limits on guessing through the pages (passwords, device sign-in codes), shared through Redis when set. */
  guessLimits: GuessLimits;
  /** Seals the session cookie (next-auth's secret). */
  authSecret: string;
  /** Whether the pages are served over HTTPS: session cookies are then `Secure` and `__Secure-` prefixed. */
  secureCookies: boolean;
  /** The authorization server's settings: issuer, the resource it protects, the token brand. */
  oauth: OAuthSettings;
  /** Account mail: SMTP (`SHELF_SMTP_URL`) or the data folder's outbox. */
  mailer: Mailer;
  /** The business disclosure the footer shows (`/api/public/disclosure`'s data), when the deployment publishes one. */
  disclosure: PublicDisclosureData | undefined;
  /** The invoice PDFs' font file (`@shelf/api/invoice-font`), resolved by the server's own process. */
  invoiceFont: string;
};

const slot = runtimeSlot<WebRuntime>("web");

export const setRuntime = slot.set;
export const getRuntime = slot.get;
