import { openSync } from "node:fs";
import { envErrorLine, optionalSetting, SetupError } from "@shelf/db/env";
import pino from "pino";
import { z } from "zod";
import { CodedError, ValidationError } from "./errors";

export type Logger = pino.Logger;

export const LogEnv = z.object({
  SHELF_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Append the JSON log lines to this file instead of standard output. */
  SHELF_LOG_FILE: optionalSetting(),
});
export type LogEnv = z.infer<typeof LogEnv>;

export function readLogEnv(env: NodeJS.ProcessEnv = process.env): LogEnv {
  const parsed = LogEnv.safeParse(env);
  if (!parsed.success) throw new SetupError(envErrorLine(parsed.error));
  return parsed.data;
}

/**
 * One JSON line per event (pino; `time` in epoch milliseconds). What is logged is chosen field by field: request
 * lines name the route template (never the URL or a header) and errors go through `safeError`, so a log never holds
 * a key, a key hash, a token, a password or a request body (the test run scans its whole log for them). No generic
 * redaction: it cost 11 µs a line, more than the line itself. Lines are written in batches of 4 KiB, off the
 * request path; pino flushes the rest when the process exits.
 */
export function createLogger(
  env: LogEnv,
  bindings: Record<string, string> = {},
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level: env.SHELF_LOG_LEVEL,
      base: { service: "shelf", pid: process.pid, ...bindings },
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: safeError, error: safeError },
    },
    // The file is opened here, synchronously: an asynchronous open could still be pending at exit, and flushing then
    // throws.
    destination ??
      pino.destination({
        dest: env.SHELF_LOG_FILE ? openSync(env.SHELF_LOG_FILE, "a") : 1,
        sync: false,
        minLength: 4096,
      }),
  );
}

/** Key-shaped text and 64-character hex digests (key hashes), wherever they hide in a message. */
const SECRET_SHAPES = /\b[a-z][a-z0-9]{1,11}_[1-9A-HJ-NP-Za-km-z]{32}\b|\b[0-9a-f]{64}\b/g;
const scrub = (text: string | undefined) => text?.replace(SECRET_SHAPES, "[redacted]");

type SafeError = { type: string; code?: string; message?: string; stack?: string; cause?: SafeError };

/**
 * What an error may say in a log. Database errors give their SQLSTATE only: drizzle's "Failed query" messages
 * carry the SQL and its parameters (a key's hash in a failed key lookup), and PostgreSQL's messages can quote input.
 * Errors of our own keep their message; anything else keeps message and stack, with anything key-shaped scrubbed.
 */
export function safeError(error: unknown, depth = 0): SafeError {
  if (!(error instanceof Error)) return { type: typeof error };
  const type = error.constructor?.name ?? error.name;
  const code = (error as { code?: unknown }).code;
  const cause = error.cause !== undefined && depth < 5 ? { cause: safeError(error.cause, depth + 1) } : {};
  if (error instanceof CodedError || error instanceof ValidationError) {
    return { type, code: error instanceof CodedError ? error.code : "validation", message: error.message };
  }
  const fromDatabase =
    type === "PostgresError" || type === "DrizzleQueryError" || "query" in error || "parameters" in error;
  if (fromDatabase || type === "TRPCError") {
    return { type, ...(typeof code === "string" ? { code } : {}), ...cause };
  }
  return {
    type,
    ...(typeof code === "string" ? { code } : {}),
    message: scrub(error.message),
    stack: scrub(error.stack),
    ...cause,
  };
}
