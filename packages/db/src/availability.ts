/**
 * Whether an error means the database could not answer (down, unreachable, restarting, overloaded, too slow), as
 * opposed to a bug or a refused statement: the first is a 503 the client should retry, the second a 500. Walks the
 * `cause` chain, since drizzle wraps the driver's errors.
 */
export function databaseUnavailable(error: unknown): string | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (DRIVER_CODES.has(code)) return code;
    // SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (operator intervention).
    if (/^(08|53)[0-9A-Z]{3}$/.test(code) || /^57P0[1-4]$/.test(code)) return code;
    if (code === QUERY_CANCELED || code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED) return code;
  }
  return null;
}

/** Codes that say the database itself is gone or stuck, not merely busy with this one statement. */
export function databaseDown(reason: string | null): boolean {
  return (
    reason !== null && reason !== QUERY_CANCELED && reason !== SERIALIZATION_FAILURE && reason !== DEADLOCK_DETECTED
  );
}

/** statement_timeout (or a cancel) fired. */
const QUERY_CANCELED = "57014";
const SERIALIZATION_FAILURE = "40001";
const DEADLOCK_DETECTED = "40P01";

/** Node's socket errors and postgres.js's connection errors. */
const DRIVER_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "DATABASE_DEADLINE",
]);

/** Thrown when the database did not answer within the deadline: a frozen server enforces no statement timeout. */
export class DatabaseDeadlineError extends Error {
  readonly code = "DATABASE_DEADLINE";
  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms.`);
    this.name = "DatabaseDeadlineError";
  }
}

/** Races work that needs the database against a deadline. */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseDeadlineError(ms)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
