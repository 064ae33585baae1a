import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createGuessLimits } from "../../auth/guess-limits";
import { createAccount, createAccountWithKey, createKey, recordSecret, signedInCaller } from "../../testing";
import { CONTRACT_DEVICE_ABILITIES } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { DEVICE_CODE_GRANT_TYPE } from "./schemas";
import { normalizeUserCode } from "./service";

const { testDb, request } = withApiSuite();

type Started = { device_code: string; user_code: string; interval: number; verification_uri: string };

/** Each sign-in from an address of its own: one address may start only 10 a minute. */
let addresses = 0;
const nextAddress = () => `198.51.100.${++addresses}`;

async function start(clientId = "shelf-cli", deviceName?: string): Promise<Started> {
  const response = await request("/api/device-sign-in/code", {
    method: "POST",
    body: { client_id: clientId, ...(deviceName ? { device_name: deviceName } : {}) },
    clientAddress: nextAddress(),
  });
  expect(response.status, response.text).toBe(200);
  recordSecret(response.body.device_code);
  return response.body;
}

function poll(deviceCode: string, clientId = "shelf-cli") {
  return request("/api/device-sign-in/token", {
    method: "POST",
    body: { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: deviceCode, client_id: clientId },
  });
}

const byUserCode = (started: Started) =>
  sql`user_code_hash = encode(sha256(convert_to(${normalizeUserCode(started.user_code)}, 'UTF8')), 'hex')`;

/** Moves a sign-in's last poll into the past, as if the client had waited. */
async function waitedSincePoll(started: Started, seconds: number) {
  await testDb.db.execute(
    sql`update device_sign_ins set last_polled_at = last_polled_at - make_interval(secs => ${seconds})
      where ${byUserCode(started)}`,
  );
}

/** Ends a sign-in's life, as if ten minutes had passed. */
async function expire(started: Started) {
  await testDb.db.execute(
    sql`update device_sign_ins set expires_at = now() - interval '1 second' where ${byUserCode(started)}`,
  );
}

describe("device sign-in (RFC 8628)", () => {
  it("runs from code to key: pending, approved on the page, the key once, then the code is spent", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const person = await signedInCaller(testDb.db, account.id);
    const started = await start("shelf-cli", "build-box");
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe("http://shelf.test/device");
    expect(started.interval).toBe(5);

    const pending = await poll(started.device_code);
    expect(pending.status).toBe(400);
    expect(pending.body).toMatchObject({ error: "authorization_pending", error_description: expect.any(String) });

    const shown = await person.caller.deviceSignIn.find({ user_code: started.user_code.toLowerCase() });
    expect(shown).toMatchObject({
      client_id: "shelf-cli",
      client_name: "Shelf command-line client",
      device_name: "build-box",
      abilities: CONTRACT_DEVICE_ABILITIES,
    });
    await expect(
      person.caller.deviceSignIn.decide({ user_code: started.user_code, decision: "approve" }),
    ).resolves.toMatchObject({ decision: "approve", device_name: "build-box" });

    await waitedSincePoll(started, 5);
    const issued = await poll(started.device_code);
    expect(issued.status, issued.text).toBe(200);
    expect(issued.headers.get("cache-control")).toBe("no-store");
    recordSecret(issued.body.access_token);
    expect(issued.body).toMatchObject({
      token_type: "Bearer",
      key: { name: "Shelf command-line client on build-box", abilities: shown.abilities },
      account: { id: account.id, email: account.email },
    });
    expect(issued.body.access_token.slice(0, 14)).toBe(issued.body.key.prefix);
    const library = await request("/api/library", { key: issued.body.access_token });
    expect(library.status).toBe(200);

    await waitedSincePoll(started, 5);
    const again = await poll(started.device_code);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("takes URL-encoded forms as OAuth device clients send them", async () => {
    const form = await request("/api/device-sign-in/code", {
      method: "POST",
      clientAddress: nextAddress(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      rawBody: "client_id=shelf-desktop&device_name=Studio%20Mac",
    });
    expect(form.status, form.text).toBe(200);
    recordSecret(form.body.device_code);
    const polled = await request("/api/device-sign-in/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      rawBody: new URLSearchParams({
        grant_type: DEVICE_CODE_GRANT_TYPE,
        device_code: form.body.device_code,
        client_id: "shelf-desktop",
      }).toString(),
    });
    expect(polled.body.error).toBe("authorization_pending");
    const twice = await request("/api/device-sign-in/code", {
      method: "POST",
      clientAddress: nextAddress(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      rawBody: "client_id=shelf-cli&client_id=shelf-desktop",
    });
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toEqual({ client_id: ["must be given once"] });
  });

  it("refuses unknown clients, wrong grant types and another client's code", async () => {
    const unknown = await request("/api/device-sign-in/code", {
      method: "POST",
      body: { client_id: "evil-app" },
      clientAddress: nextAddress(),
    });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(["client_id"]);
    const started = await start();
    const wrongGrant = await request("/api/device-sign-in/token", {
      method: "POST",
      body: { grant_type: "authorization_code", device_code: started.device_code, client_id: "shelf-cli" },
    });
    expect(wrongGrant.status).toBe(422);
    const otherClient = await poll(started.device_code, "shelf-desktop");
    expect(otherClient.body.error).toBe("invalid_grant");
    expect((await poll("not-a-device-code")).body.error).toBe("invalid_grant");
  });

  it("answers slow_down to a client polling sooner than the interval, and makes the interval longer", async () => {
    const started = await start();
    expect((await poll(started.device_code)).body.error).toBe("authorization_pending");
    const early = await poll(started.device_code);
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({ error: "slow_down", interval: 10 });
    await waitedSincePoll(started, 6);
    expect((await poll(started.device_code)).body).toMatchObject({ error: "slow_down", interval: 15 });
    await waitedSincePoll(started, 15);
    expect((await poll(started.device_code)).body.error).toBe("authorization_pending");
  });

  it("tells the client the person denied, and lets no later approval through", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const person = await signedInCaller(testDb.db, account.id);
    const started = await start();
    await person.caller.deviceSignIn.decide({ user_code: started.user_code, decision: "deny" });
    await expect(
      person.caller.deviceSignIn.decide({ user_code: started.user_code, decision: "approve" }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await poll(started.device_code)).body.error).toBe("access_denied");
  });

  it("expires codes: the client hears expired_token and the page finds nothing to approve", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const person = await signedInCaller(testDb.db, account.id);
    const started = await start();
    const approvedThenExpired = await start();
    await person.caller.deviceSignIn.decide({ user_code: approvedThenExpired.user_code, decision: "approve" });
    await expire(started);
    await expire(approvedThenExpired);
    expect((await poll(started.device_code)).body.error).toBe("expired_token");
    expect((await poll(approvedThenExpired.device_code)).body.error).toBe("expired_token");
    await expect(person.caller.deviceSignIn.find({ user_code: started.user_code })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("hands the key to exactly one of many parallel polls", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const person = await signedInCaller(testDb.db, account.id);
    const started = await start();
    await person.caller.deviceSignIn.decide({ user_code: started.user_code, decision: "approve" });
    const answers = await Promise.all(Array.from({ length: 8 }, () => poll(started.device_code)));
    const issued = answers.filter((answer) => answer.status === 200);
    for (const answer of issued) recordSecret(answer.body.access_token);
    expect(issued).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400).map((answer) => answer.body.error)).toEqual(
      Array(7).fill(expect.stringMatching(/^(slow_down|invalid_grant)$/)),
    );
    const [{ count }] = (await testDb.db.execute(
      sql`select count(*)::int as count from api_keys where account_id = ${account.id} and kind = 'device'`,
    )) as unknown as [{ count: number }];
    expect(count).toBe(1);
  });

  it("replaces the least recently used key of the same client when the account has no free slot", async () => {
    const account = await createAccount(testDb.db);
    const person = await signedInCaller(testDb.db, account.id);
    const oldCli = await createKey(testDb.db, account.id, { kind: "device", client: "shelf-cli" });
    const created = await createKey(testDb.db, account.id);
    const newerCli = await createKey(testDb.db, account.id, { kind: "device", client: "shelf-cli" });
    const started = await start();
    await person.caller.deviceSignIn.decide({ user_code: started.user_code, decision: "approve" });
    const issued = await poll(started.device_code);
    expect(issued.status, issued.text).toBe(200);
    recordSecret(issued.body.access_token);
    expect((await request("/api/library", { key: oldCli.key })).status).toBe(401);
    expect((await request("/api/library", { key: created.key })).status).toBe(200);
    expect((await request("/api/library", { key: newerCli.key })).status).toBe(200);
    expect((await request("/api/library", { key: issued.body.access_token })).status).toBe(200);
  });

  it("refuses approval when no slot is free and no key of that client could make room, and tells the device at once", async () => {
    const account = await createAccount(testDb.db);
    const person = await signedInCaller(testDb.db, account.id);
    for (let i = 0; i < 3; i++) await createKey(testDb.db, account.id);
    const started = await start("shelf-desktop");
    await expect(
      person.caller.deviceSignIn.decide({ user_code: started.user_code, decision: "approve" }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringContaining("start the sign-in again") });
    // The device's next poll ends its wait with the reason, instead of authorization_pending for ten minutes.
    const polled = await poll(started.device_code, "shelf-desktop");
    expect(polled.status).toBe(400);
    expect(polled.body).toMatchObject({
      error: "access_denied",
      reason: "api_key_limit_reached",
      error_description: expect.stringContaining("Every account-wide key slot (3) is taken"),
    });
    // The sign-in has ended: nothing is left to decide, and no key was made.
    await expect(
      person.caller.deviceSignIn.decide({ user_code: started.user_code, decision: "approve" }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const [{ count }] = (await testDb.db.execute(
      sql`select count(*)::int as count from api_keys where account_id = ${account.id} and kind = 'device'`,
    )) as unknown as [{ count: number }];
    expect(count).toBe(0);
  });

  it("stores neither code, only their hashes", async () => {
    const started = await start();
    const rows = (await testDb.db.execute(
      sql`select row_to_json(d)::text as row from device_sign_ins d`,
    )) as unknown as {
      row: string;
    }[];
    const stored = rows.map((row) => row.row).join("\n");
    expect(stored).not.toContain(started.device_code);
    expect(stored).not.toContain(started.user_code);
    expect(stored).not.toContain(normalizeUserCode(started.user_code));
  });

  it("limits wrong user codes per account, and a right code past the limit waits too", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const guessLimits = createGuessLimits({ namespace: `test-guess-${account.id}` });
    const person = await signedInCaller(testDb.db, account.id, { guessLimits });
    const started = await start();
    const wrong = Array.from({ length: 10 }, (_, i) => `BBBB-BBB${"CDFGHJKLMN"[i]}`);
    const answers = await Promise.allSettled(wrong.map((code) => person.caller.deviceSignIn.find({ user_code: code })));
    expect(answers.every((answer) => answer.status === "rejected")).toBe(true);
    await expect(person.caller.deviceSignIn.find({ user_code: started.user_code })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
    });
    const other = await signedInCaller(testDb.db, (await createAccount(testDb.db)).id, { guessLimits });
    await expect(other.caller.deviceSignIn.find({ user_code: started.user_code })).resolves.toMatchObject({
      client_id: "shelf-cli",
    });
  });

  it("lets one address start 10 sign-ins a minute", async () => {
    const address = "192.0.2.77";
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      const response = await request("/api/device-sign-in/code", {
        method: "POST",
        body: { client_id: "shelf-cli" },
        clientAddress: address,
      });
      if (response.status === 200) recordSecret(response.body.device_code);
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });

  it("takes codes as people type them, and refuses what cannot be a code", async () => {
    expect(normalizeUserCode("bdwp hqpk")).toBe("BDWPHQPK");
    expect(normalizeUserCode("BDWP-HQPK")).toBe("BDWPHQPK");
    expect(normalizeUserCode("BDWP-HQPA")).toBeNull();
    expect(normalizeUserCode("BDWP-HQP")).toBeNull();
    const { account } = await createAccountWithKey(testDb.db);
    const person = await signedInCaller(testDb.db, account.id);
    await expect(person.caller.deviceSignIn.find({ user_code: "1234-5678" })).rejects.toMatchObject({
      code: "UNPROCESSABLE_CONTENT",
    });
  });

  it("is managed only by a signed-in person: an API key cannot approve a sign-in", async () => {
    const { key } = await createAccountWithKey(testDb.db);
    const { callerFor } = await import("../../testing");
    const caller = await callerFor(testDb.db, key);
    await expect(caller.deviceSignIn.decide({ user_code: "BDWP-HQPK", decision: "approve" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(caller.keys.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
