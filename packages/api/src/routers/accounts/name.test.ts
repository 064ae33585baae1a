import { useTestDatabase } from "@shelf/db/testing";
import { describe, expect, it } from "vitest";
import { createAccount } from "../../testing/factories";
import { signedInCaller } from "../../testing/harness";

const testDb = useTestDatabase();

describe("changing one's name", () => {
  it("changes the signed-in person's own name only, clears it when empty, and refuses more than 200 characters", async () => {
    const { db } = testDb;
    const me = await createAccount(db, { name: "Old Name" });
    const them = await createAccount(db, { name: "Their Name" });
    const { caller } = await signedInCaller(db, me.id);
    expect(await caller.account.changeName({ name: "  Ada Lovelace " })).toEqual({
      id: me.id,
      email: me.email,
      name: "Ada Lovelace",
      email_verified: false,
    });
    expect((await caller.account.me()).name).toBe("Ada Lovelace");
    await expect(caller.account.changeName({ name: "x".repeat(201) })).rejects.toThrow();
    expect((await caller.account.me()).name).toBe("Ada Lovelace");
    expect((await caller.account.changeName({ name: "   " })).name).toBeNull();
    const { caller: theirs } = await signedInCaller(db, them.id);
    expect((await theirs.account.me()).name).toBe("Their Name");
  });
});
