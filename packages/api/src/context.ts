import type { Database } from "@shelf/db";
import type { Credential } from "./auth/caller";

/** What a procedure may set on the HTTP response; a nested object, because middleware copies ctx. */
export type ResponseState = {
  headers: Record<string, string>;
};

export type Context = {
  db: Database;
  credential: Credential;
  /** Public base URL of the API host, for links in responses. */
  baseUrl: string;
  res: ResponseState;
};

export type CreateContextOptions = {
  db: Database;
  credential: Credential;
  baseUrl: string;
};

export function createContext(options: CreateContextOptions): Context {
  return { ...options, res: { headers: {} } };
}
