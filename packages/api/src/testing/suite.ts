import type { CreateDbOptions } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll } from "vitest";
import type { Delivery } from "../delivery";
import { createTestDelivery } from "./delivery";
import { type ApiRequestOptions, createApiClient } from "./harness";

export type ApiClient = ReturnType<typeof createApiClient>;

function made<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is made in beforeAll: read it in a hook or a test`);
  return value;
}

/**
 * This test file's own database (createTestDatabase), made before its tests and dropped after them. The handle
 * reads the database when a test runs, so a file can name it at its top level.
 */
export function withTestDatabase(options: CreateDbOptions = {}): TestDatabase {
  let testDb: TestDatabase | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase(options);
  });
  afterAll(() => testDb?.drop());
  const opened = () => made(testDb, "the test database");
  return {
    get db() {
      return opened().db;
    },
    get sql() {
      return opened().sql;
    },
    get deadlineMs() {
      return opened().deadlineMs;
    },
    get url() {
      return opened().url;
    },
    get name() {
      return opened().name;
    },
    close: () => opened().close(),
    drop: () => opened().drop(),
  };
}

/**
 * The usual set-up of a suite that sends real requests: its own database (withTestDatabase) and an API client on it
 * (createApiClient). With `ownDelivery`, the client delivers from a delivery of the file's own (createTestDelivery,
 * read as `delivery`) instead of the test process's shared one.
 */
export function withApiSuite(options: { database?: CreateDbOptions; ownDelivery?: boolean } = {}) {
  const testDb = withTestDatabase(options.database);
  let delivery: (Delivery & { dir: string }) | undefined;
  let client: ApiClient | undefined;
  beforeAll(async () => {
    if (options.ownDelivery) delivery = await createTestDelivery();
    client = createApiClient(testDb.db, { delivery });
  });
  const request: ApiClient = (path: string, init?: ApiRequestOptions) => made(client, "the API client")(path, init);
  return {
    testDb,
    request,
    get delivery() {
      return made(delivery, "the suite's own delivery (ownDelivery)");
    },
  };
}
