import postgres from "postgres";
import { withDeadline } from "./availability";
import { SetupError } from "./env";

/** Where a URL points, without its password. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return "the configured server";
  }
}

/**
 * Connects once and runs `select 1`, so that a wrong DATABASE_URL is reported before anything else starts: host
 * unreachable or unknown, connection refused, database or role missing, password refused.
 */
export async function checkDatabase(url: string, timeoutSeconds = 5): Promise<void> {
  const client = postgres(url, { max: 1, connect_timeout: timeoutSeconds, fetch_types: false, onnotice: () => {} });
  try {
    // postgres.js keeps a query waiting through failed connection attempts: the deadline is ours.
    await withDeadline(client`select 1`.execute(), timeoutSeconds * 1000 + 500);
  } catch (error) {
    throw new SetupError(explainConnectionError(error, url, timeoutSeconds));
  } finally {
    await client.end({ timeout: 1 }).catch(() => {});
  }
}

export function explainConnectionError(error: unknown, url: string, timeoutSeconds: number): string {
  const parsed = new URL(url);
  const where = `${parsed.hostname}:${parsed.port || 5432}`;
  const database = decodeURIComponent(parsed.pathname.slice(1)) || "postgres";
  const role = decodeURIComponent(parsed.username) || "(the default role)";
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ECONNREFUSED":
      return `Cannot connect to PostgreSQL at ${where}: connection refused (is the server running, on that port?).`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `Cannot connect to PostgreSQL: the host "${parsed.hostname}" is unknown.`;
    case "CONNECT_TIMEOUT":
    case "DATABASE_DEADLINE":
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `Cannot connect to PostgreSQL at ${where}: no answer within ${timeoutSeconds} s (host unreachable?).`;
    case "3D000":
      return `The database "${database}" does not exist on ${where} (create it, e.g. createdb ${database}).`;
    case "28000":
      return `The role "${role}" cannot connect to ${where}: ${(error as Error).message}.`;
    case "28P01":
      return `PostgreSQL at ${where} refused the password of role "${role}".`;
    case "53300":
      return `PostgreSQL at ${where} has no connection slot left (too many connections).`;
    default:
      return `Cannot use PostgreSQL at ${where}: ${code ?? ""} ${(error as Error).message ?? String(error)}`.replace(
        /\s+/g,
        " ",
      );
  }
}
