import type { ArtifactStore, SigningKeySource } from "@shelf/api";
import type { Database } from "@shelf/db";
import type { OptionValues } from "./args";

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
