import { z } from "zod";
import { CliError, ExitCode } from "./errors";

/** The client's environment, read once at start (the house style: no `process.env` elsewhere). */
const CliEnv = z.object({
  SHELF_BASE_URL: z.string().trim().min(1).optional(),
  /** A key for CI: wins over a stored one, and is never written anywhere. */
  SHELF_API_KEY: z.string().trim().min(1).optional(),
  /** `off` skips the OS keychain and keeps the key in the 0600 file. */
  SHELF_KEYRING: z.enum(["auto", "off"]).default("auto"),
  /** Milliseconds to wait for the OS keychain before falling back to the file. */
  SHELF_KEYRING_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(3000),
  /** Where installs go unless `--dir` says otherwise (default: the data folder's `installs`). */
  SHELF_INSTALL_DIR: z.string().min(1).optional(),
  /** Any value turns off the daily "newer client" hint. */
  SHELF_NO_UPDATE_NOTIFIER: z.string().optional(),
  /** How long a finished command waits at most for the newer-client check's answer (milliseconds). */
  SHELF_UPDATE_CHECK_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(1500),
  /** Set by CI services: no "newer client" hint there either. */
  CI: z.string().optional(),
  /** A desktop to open the sign-in page on (Linux). */
  DISPLAY: z.string().optional(),
  WAYLAND_DISPLAY: z.string().optional(),
  /** Where the shell looks for commands: an installed binary outside it is worth a word. */
  PATH: z.string().optional(),
  /** Where agent skills are linked (~/.claude/skills, ~/.codex/skills). */
  HOME: z.string().optional(),
});
export type CliEnv = z.infer<typeof CliEnv>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  const parsed = CliEnv.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  // A setting the person made, not a failure of shelf's: a usage error, never a crash.
  throw new CliError(`The environment has a bad value: ${problems}.`, ExitCode.usage, "usage");
}
