import { type ArtifactStore, accounts, type SigningKeySource } from "@shelf/api";
import type { Database } from "@shelf/db";
import { type OptionValues, requiredInteger, requiredString } from "./args";

export type CommandContext = {
  db: Database;
  /** The key brand prefix (`SHELF_KEY_PREFIX`). */
  brand: string;
  /** The data folder (`SHELF_DATA_DIR`): the embedded database, the demo secret. */
  dataDir: string;
  /** The signing key set (`SHELF_SIGNING_KEYS`, the file `SHELF_SIGNING_KEYS_FILE` names, else in the data folder). */
  signingKeys: SigningKeySource;
  /** Where artifacts are stored: the S3 bucket of the settings, else the data folder's artifacts/. */
  store: ArtifactStore;
  readStdin: () => Promise<string>;
};

/** What a command prints: `json` with --json (one object), `text` otherwise. */
export type CommandOutput = { json: Record<string, unknown>; text: string };

type OptionSpec = { type: "string" | "boolean"; short?: string };

export type Command = {
  name: string;
  summary: string;
  /** The options line of the usage text, e.g. `--email E [--name N]`. */
  synopsis: string;
  /** Extra lines of help under the synopsis. */
  details?: string[];
  options: Record<string, OptionSpec>;
  /** False for a command that works on local files only: no database is opened (or started) for it. */
  database?: boolean;
  /**
   * Checks the arguments before any database is opened, so a typo never starts the embedded server, and returns
   * the work to do.
   */
  prepare: (values: OptionValues) => (context: CommandContext) => Promise<CommandOutput>;
};

/**
 * A command that acts on one record named by its id (`--id ID`, a positive integer): `act` does it, and the record it
 * returns is the JSON output and, through `describe`, the text. The synopsis stays written out at each command, where
 * the documents' check (tooling/architecture/docs.test.ts) reads every command's options.
 */
export function byIdCommand<T extends Record<string, unknown>>(spec: {
  name: string;
  summary: string;
  synopsis: "--id ID";
  details?: string[];
  act: (db: Database, id: number) => Promise<T>;
  describe: (record: T) => string;
}): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    synopsis: spec.synopsis,
    details: spec.details,
    options: { id: { type: "string" } },
    prepare(values) {
      const id = requiredInteger(values, "id", { min: 1 });
      return async ({ db }) => {
        const record = await spec.act(db, id);
        return { json: record, text: spec.describe(record) };
      };
    },
  };
}

/**
 * A command that records something for one account named by its email (`--email E`, read first, so that a missing
 * email is the first complaint): `input` reads and checks the other options, `act` writes the record with the
 * account's id, and the record is the JSON output and, through `describe` (given the account's stored email), the
 * text. Like `byIdCommand`, each command still writes out its synopsis and options for the documents' check.
 */
export function forAccountCommand<I extends object, T extends Record<string, unknown>>(spec: {
  name: string;
  summary: string;
  synopsis: string;
  details?: string[];
  options: Record<string, OptionSpec>;
  input: (values: OptionValues) => I;
  act: (db: Database, input: I & { accountId: number }) => Promise<T>;
  describe: (record: T, email: string) => string;
}): Command {
  const { input, act, describe, ...command } = spec;
  return {
    ...command,
    prepare(values) {
      const email = requiredString(values, "email");
      const read = input(values);
      return async ({ db }) => {
        const account = await accounts.requireAccountByEmail(db, email);
        const record = await act(db, { accountId: account.id, ...read });
        return { json: record, text: describe(record, account.email) };
      };
    },
  };
}
