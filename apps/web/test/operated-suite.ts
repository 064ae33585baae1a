import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll } from "vitest";
import { adminCli } from "./admin-cli";
import { type RunningServer, startServer } from "./server";

/**
 * A suite that works as an operator would: a test database and a data folder of its own from the first hook on, the
 * operator CLI on both (`admin`), then the production server on them once the suite has set up its data (`start`);
 * the server stopped and both removed after the suite. Register it before the suite's own hooks.
 */
export function operatedSuite(prefix: string) {
  let testDb: TestDatabase | undefined;
  let dataDir: string | undefined;
  let server: RunningServer | undefined;
  const suite = {
    get testDb(): TestDatabase {
      if (!testDb) throw new Error("The suite's database is made in its first hook.");
      return testDb;
    },
    get dataDir(): string {
      if (!dataDir) throw new Error("The suite's data folder is made in its first hook.");
      return dataDir;
    },
    get server(): RunningServer {
      if (!server) throw new Error("The suite's server has not been started.");
      return server;
    },
    admin: adminCli(() => ({ databaseUrl: testDb?.url ?? "", dataDir: dataDir ?? "" })),
    /** Starts the production server on the suite's database and folder, with a generous rate limit and `env`. */
    start: async (env: Record<string, string | undefined> = {}): Promise<RunningServer> => {
      server = await startServer({
        DATABASE_URL: testDb?.url,
        SHELF_DATA_DIR: dataDir,
        SHELF_RATE_LIMIT_PER_MINUTE: "1000",
        ...env,
      });
      return server;
    },
  };
  beforeAll(async () => {
    testDb = await createTestDatabase();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
    await testDb?.drop();
  });
  return suite;
}
