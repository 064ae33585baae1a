import type { Database } from "@shelf/db";

/** Any constant: seeders running at once (web launcher and CLI) take turns on it. */
export const SEED_LOCK_ID = 0x5e1f_de30;
export const DAY_MS = 86_400_000;

export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
