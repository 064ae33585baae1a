import { schema } from "@shelf/db";
import { useTestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../errors";
import { findAccountByEmail, signUp } from "./service";

const testDb = useTestDatabase();

const legal = { termsUrl: "https://shelf.test/terms", privacyUrl: "https://shelf.test/privacy" };

async function row(id: number) {
  const [account] = await testDb.db.select().from(schema.accounts).where(eq(schema.accounts.id, id));
  return account;
}

describe("sign-up and the terms", () => {
  it("refuses a sign-up that does not accept published terms, and creates nothing", async () => {
    const { db } = testDb;
    for (const accept_terms of [undefined, false]) {
      await expect(
        signUp(db, { email: "refuser@example.test", password: "long enough", accept_terms }, legal),
      ).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(
      signUp(db, { email: "refuser@example.test", password: "long enough" }, { privacyUrl: legal.privacyUrl }),
    ).rejects.toMatchObject({ errors: { accept_terms: expect.any(Array) } });
    expect(await findAccountByEmail(db, "refuser@example.test")).toBeNull();
  });

  it("records when and which terms were accepted, with the account", async () => {
    const { db } = testDb;
    const before = Date.now();
    const account = await signUp(
      db,
      { email: "accepter@example.test", password: "long enough", accept_terms: true, language: "ko" },
      legal,
    );
    const stored = await row(account.id);
    expect(stored?.acceptedTermsUrl).toBe(legal.termsUrl);
    expect(stored?.acceptedPrivacyUrl).toBe(legal.privacyUrl);
    expect(stored?.language).toBe("ko");
    expect(stored?.termsAcceptedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("asks nothing and records nothing when the deployment publishes no terms", async () => {
    const account = await signUp(testDb.db, { email: "plain@example.test", password: "long enough" });
    const stored = await row(account.id);
    expect(stored?.termsAcceptedAt).toBeNull();
    expect(stored?.acceptedTermsUrl).toBeNull();
  });
});
