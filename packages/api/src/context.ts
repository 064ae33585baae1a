import type { Database } from "@shelf/db";
import type { Credential } from "./auth/caller";
import type { Delivery } from "./delivery";

/** What a procedure may set on the HTTP response; a nested object, because middleware copies ctx. */
export type ResponseState = {
  headers: Record<string, string>;
};

export type Context = {
  db: Database;
  credential: Credential;
  /** Public base URL of the API host, for links in responses. */
  baseUrl: string;
  /** Artifact storage, download links and signing: set by entry points that deliver files. */
  delivery?: Delivery;
  res: ResponseState;
};

export type CreateContextOptions = {
  db: Database;
  credential: Credential;
  baseUrl: string;
  delivery?: Delivery;
};

export function createContext(options: CreateContextOptions): Context {
  return { ...options, res: { headers: {} } };
}
