import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Global setup of the whole test run: every process of the run (in-process edges, the servers and CLIs the tests
 * spawn) appends its JSON log lines to one file, and the tests record every key they create. At the end, the run
 * fails if any log line holds one of those keys or its SHA-256 hash.
 */
export default async function setup() {
  if (process.env.SHELF_LOG_FILE && process.env.SHELF_TEST_SECRETS_FILE) return;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-test-log-"));
  const logFile = path.join(dir, "run.log");
  const secretsFile = path.join(dir, "secrets.txt");
  await fs.writeFile(logFile, "");
  await fs.writeFile(secretsFile, "");
  process.env.SHELF_LOG_FILE = logFile;
  process.env.SHELF_TEST_SECRETS_FILE = secretsFile;

  return async () => {
    const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
    const secrets = [...new Set(readFileSync(secretsFile, "utf8").split("\n").filter(Boolean))];
    await fs.rm(dir, { recursive: true, force: true });
    const leaked = secrets.filter((secret) => log.includes(secret));
    const lines = log.split("\n").filter(Boolean).length;
    if (leaked.length > 0) {
      const shown = leaked.map((secret) => `${secret.slice(0, 10)}…`).join(", ");
      throw new Error(`The run's log (${lines} lines) holds ${leaked.length} keys or key hashes: ${shown}`);
    }
    console.log(`Log scan: ${lines} log lines, none holds any of the ${secrets.length} keys and hashes created.`);
  };
}
