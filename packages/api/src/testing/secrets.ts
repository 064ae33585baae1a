import { appendFileSync } from "node:fs";
import { hashSecret } from "../auth/key-secret";

const KEY_SHAPED = /\b[a-z][a-z0-9]{1,11}_(?:design_)?[1-9A-HJ-NP-Za-km-z]{32}\b/g;

/**
 * Remembers a key the tests created, and its hash, so that the end of the run can check no log line holds either
 * (see log-scan.ts). A no-op outside a full test run.
 */
export function recordSecret(key: string): void {
  const file = process.env.SHELF_TEST_SECRETS_FILE;
  if (file) appendFileSync(file, `${key}\n${hashSecret(key)}\n`);
}

/** Records every key-shaped string in some output (a CLI's, a server's banner). */
export function recordSecretsIn(text: string): void {
  for (const match of text.matchAll(KEY_SHAPED)) recordSecret(match[0]);
}

/** A log line captured by a test, also written to the run's log, so the final scan sees it as it was written. */
export function appendToRunLog(line: string): void {
  const file = process.env.SHELF_LOG_FILE;
  if (file) appendFileSync(file, line.endsWith("\n") ? line : `${line}\n`);
}
