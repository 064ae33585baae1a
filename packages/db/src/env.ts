import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** An optional setting: unset and empty both mean "not set". */
export const optionalSetting = () =>
  z
    .string()
    .optional()
    .transform((value) => value || undefined);

const DbEnv = z.object({
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || undefined)
    .pipe(
      z
        .url({
          protocol: /^postgres(ql)?$/,
          error: "must be a postgres:// or postgresql:// URL, like postgres://user@host:5432/shelf",
        })
        .optional(),
    ),
  SHELF_DATA_DIR: z
    .string()
    .trim()
    .optional()
    .transform((value) => path.resolve(repoRoot, value || ".data")),
  SHELF_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** A connection attempt gives up after this long. */
  SHELF_DB_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(5),
  /** PostgreSQL cancels a statement running longer (statement_timeout); requests give up 1 s later. */
  SHELF_DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** PostgreSQL ends a session left idle inside a transaction this long (idle_in_transaction_session_timeout). */
  SHELF_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
});

export type DbEnv = z.infer<typeof DbEnv>;

/** The pool timeouts a DbEnv configures. */
export function timeoutsOf(env: DbEnv) {
  return {
    connectSeconds: env.SHELF_DB_CONNECT_TIMEOUT_SECONDS,
    statementMs: env.SHELF_DB_STATEMENT_TIMEOUT_MS,
    idleInTransactionMs: env.SHELF_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

export function readDbEnv(env: NodeJS.ProcessEnv = process.env): DbEnv {
  const parsed = DbEnv.safeParse(env);
  if (!parsed.success) throw new SetupError(envErrorLine(parsed.error));
  return parsed.data;
}

/** Settings that do not parse, in one line: `NAME: what is wrong; NAME: ...`. */
export function envErrorLine(error: z.ZodError): string {
  return `Invalid settings: ${error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}.`;
}

/** A mistake in how this installation is set up, in one line an operator can act on: printed without a stack. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SetupError";
  }
}
