import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createAccount, signedInCaller } from "@shelf/api/testing";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliHarness } from "./cli-harness";

/**
 * `housekeeping` through the real CLI: what has been dead longer than the kept days goes, what is alive or only
 * recently dead stays (a replayed code or reused refresh token must still be recognised for a while).
 */

let testDb: TestDatabase;
let dataDir: string;
const { adminJson } = cliHarness(() => ({ databaseUrl: testDb.url, dataDir }));

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-housekeeping-"));
});
afterAll(async () => {
  await testDb?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const hex = (n: number) => n.toString(16).padStart(64, "0");

describe("housekeeping", () => {
  it("removes what has been dead longer than the kept days, and keeps the rest", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    await db.execute(sql`insert into oauth_clients (id, name, redirect_uris, registration)
      values ('shelfc_test', 'Test', array['http://127.0.0.1:1/cb'], 'dynamic')`);
    const [grant] = await db.execute<{
      id: number;
    }>(sql`insert into oauth_grants (account_id, client_id, scopes, redirect_uri)
      values (${account.id}, 'shelfc_test', array['mcp.read'], 'http://127.0.0.1:1/cb') returning id`);
    const grantId = (grant as { id: number }).id;
    const code = (n: number, expires: string) =>
      db.execute(sql`insert into oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, scopes, expires_at)
        values (${hex(n)}, ${grantId}, 'shelfc_test', 'x', 'c', 'r', array['mcp.read'], now() - ${expires}::interval)`);
    await code(1, "30 days");
    await code(2, "1 hour");
    const token = (n: number, expires: string, revoked: string | null) =>
      db.execute(sql`insert into oauth_tokens (token_hash, kind, grant_id, scopes, resource, expires_at, revoked_at)
        values (${hex(n)}, 'refresh', ${grantId}, array['mcp.read'], 'r', now() - ${expires}::interval,
          ${revoked === null ? null : sql`now() - ${revoked}::interval`})`);
    await token(10, "20 days", null);
    await token(11, "-20 days", "9 days");
    await token(12, "-20 days", "1 day");
    await token(13, "-1 hour", null);
    const session = (n: number, ended: string | null, seen: string) =>
      db.execute(sql`insert into mcp_sessions (id_hash, account_id, credential, protocol_version, last_seen_at, ended_at)
        values (${hex(n)}, ${account.id}, 'key:1', '2025-11-25', now() - ${seen}::interval,
          ${ended === null ? null : sql`now() - ${ended}::interval`})`);
    await session(20, "8 days", "8 days");
    await session(21, null, "9 days");
    await session(22, null, "1 hour");
    // A live web session of the account, and one that expired long ago.
    await signedInCaller(db, account.id);
    await db.execute(sql`insert into web_sessions (account_id, token_hash, expires_at)
      values (${account.id}, ${hex(30)}, now() - interval '40 days')`);

    const result = await adminJson("housekeeping", "--keep-days", "7");
    expect(result).toEqual({
      keep_days: 7,
      removed: {
        oauth_codes: 1,
        oauth_tokens: 2,
        mcp_sessions: 2,
        web_sessions: 1,
        device_sign_ins: 0,
        password_resets: 0,
        security_events: 0,
      },
    });
    const left = async (table: string) =>
      Number(
        ((await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.raw(table)}`))[0] as { n: number })
          .n,
      );
    expect(await left("oauth_codes")).toBe(1);
    expect(await left("oauth_tokens")).toBe(2);
    expect(await left("mcp_sessions")).toBe(1);
    expect(await left("web_sessions")).toBe(1);
    expect(await left("oauth_grants")).toBe(1);

    const again = await adminJson("housekeeping");
    expect(Object.values(again.removed as Record<string, number>).every((count) => count === 0)).toBe(true);
  });
});
