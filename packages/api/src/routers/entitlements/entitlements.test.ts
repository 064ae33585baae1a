import { useTestDatabase } from "@shelf/db/testing";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../errors";
import { createAccount, createProduct } from "../../testing";
import { grantEntitlement } from "./service";

const testDb = useTestDatabase();

describe("grantEntitlement", () => {
  it("grants access, allowing an update window already over but not access that already ended", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const product = await createProduct(db);
    const updatesUntil = new Date("2025-06-30T00:00:00Z");
    const granted = await grantEntitlement(db, {
      accountId: account.id,
      productId: product.id,
      grantType: "purchase",
      updatesSupportedUntil: updatesUntil,
    });
    expect(granted).toMatchObject({
      grant_type: "purchase",
      access_expires_at: null,
      updates_supported_until: updatesUntil.toISOString(),
    });
    await expect(
      grantEntitlement(db, { accountId: account.id, productId: product.id, accessExpiresAt: new Date(Date.now() - 1) }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it("reports an unknown account or product as not found", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const product = await createProduct(db);
    await expect(grantEntitlement(db, { accountId: account.id, productId: 2_000_000_000 })).rejects.toMatchObject({
      code: "not_found",
      message: "Product not found.",
    });
    await expect(grantEntitlement(db, { accountId: 2_000_000_000, productId: product.id })).rejects.toMatchObject({
      code: "not_found",
      message: "Account not found.",
    });
  });
});
