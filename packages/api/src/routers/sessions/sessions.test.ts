import { useTestDatabase } from "@shelf/db/testing";
import { describe, expect, it } from "vitest";
import { endWebSessions, startWebSession, webSessionAccount } from "../../auth/web-session";
import { createAccount } from "../../testing/factories";
import { signedInCaller } from "../../testing/harness";
import { recordSecret } from "../../testing/secrets";

const testDb = useTestDatabase();

describe("a person's sessions", () => {
  it("lists the account's live sessions (this one first, with where each signed in from) and never another's", async () => {
    const { db } = testDb;
    const me = await createAccount(db);
    const them = await createAccount(db);
    const { caller, sessionId } = await signedInCaller(db, me.id);
    const phone = await startWebSession(db, me.id, { address: "198.51.100.7", userAgent: "Mozilla/5.0 (iPhone)" });
    recordSecret(phone.secret);
    const theirs = await startWebSession(db, them.id, { address: "203.0.113.1" });
    recordSecret(theirs.secret);
    const listed = await caller.sessions.list();
    expect(listed.map((s) => [s.id, s.current])).toEqual([
      [sessionId, true],
      [phone.sessionId, false],
    ]);
    expect(listed[1]).toMatchObject({ address: "198.51.100.7", user_agent: "Mozilla/5.0 (iPhone)" });

    // Another account's session cannot be ended through mine.
    await expect(caller.sessions.end({ id: theirs.sessionId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await webSessionAccount(db, theirs.secret)).not.toBeNull();

    // Signing one out ends it at once, and only it.
    await caller.sessions.end({ id: phone.sessionId });
    expect(await webSessionAccount(db, phone.secret)).toBeNull();
    expect((await caller.sessions.list()).map((s) => s.id)).toEqual([sessionId]);
    await expect(caller.sessions.end({ id: 0 })).rejects.toThrow();
  });

  it("signs out one browser with `only`, and every browser of the person, this one included, with endAll", async () => {
    const { db } = testDb;
    const me = await createAccount(db);
    const them = await createAccount(db);
    const { caller } = await signedInCaller(db, me.id);
    const [laptop, phone, theirs] = await Promise.all([
      startWebSession(db, me.id),
      startWebSession(db, me.id),
      startWebSession(db, them.id),
    ]);
    for (const session of [laptop, phone, theirs]) recordSecret(session.secret);

    // The header's "Sign out": this browser's session only, and never another account's by its id.
    expect(await endWebSessions(db, them.id, { only: laptop.sessionId })).toBe(0);
    expect(await endWebSessions(db, me.id, { only: laptop.sessionId })).toBe(1);
    expect(await webSessionAccount(db, laptop.secret)).toBeNull();
    expect(await webSessionAccount(db, phone.secret)).not.toBeNull();

    expect(await caller.sessions.endAll()).toEqual({ ended: 2 });
    expect(await webSessionAccount(db, phone.secret)).toBeNull();
    expect(await caller.sessions.list()).toEqual([]);
    expect(await webSessionAccount(db, theirs.secret)).not.toBeNull();
  });
});
