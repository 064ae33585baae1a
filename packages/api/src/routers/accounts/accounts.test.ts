import { useTestDatabase } from "@shelf/db/testing";
import { describe, expect, it } from "vitest";
import { DomainError, ValidationError } from "../../errors";
import { createAccount, findAccountByEmail, requireAccountByEmail } from "./service";

const testDb = useTestDatabase();

describe("createAccount", () => {
  it("finds an account by email whatever the case, and refuses a second one that differs only in case", async () => {
    const { db } = testDb;
    const account = await createAccount(db, { email: "  Mixed.Case@Example.test ", name: "Mixed" });
    expect(account).toMatchObject({ email: "Mixed.Case@Example.test", has_password: false });
    expect((await findAccountByEmail(db, "mixed.case@example.TEST"))?.id).toBe(account.id);
    await expect(createAccount(db, { email: "MIXED.case@example.test" })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/already exists/),
    });
    await expect(requireAccountByEmail(db, "nobody@example.test")).rejects.toBeInstanceOf(DomainError);
  });

  it("rejects an invalid email or a password shorter than 8 characters", async () => {
    const { db } = testDb;
    const invalid = [
      createAccount(db, { email: "not-an-email" }),
      createAccount(db, { email: "short@example.test", password: "1234567" }),
    ];
    for (const attempt of invalid) await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    expect(await findAccountByEmail(db, "short@example.test")).toBeNull();
  });
});
