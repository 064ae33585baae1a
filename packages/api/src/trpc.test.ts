import { useTestDatabase } from "@shelf/db/testing";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { DomainError } from "./errors";
import { callerFor, createAccount, createKey, createProduct, grantEntitlement } from "./testing";

const testDb = useTestDatabase();

async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCError);
  const { code, cause } = error as TRPCError;
  return { code, domain: cause instanceof DomainError ? cause.code : cause };
}

describe("procedures through createCaller", () => {
  it("carry domain errors with the matching tRPC code and the DomainError as cause", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const product = await createProduct(db);
    const reader = await createKey(db, account.id, { abilities: ["products.read"] });
    const orders = await createKey(db, account.id, { abilities: ["orders.read"] });

    expect(await rejection((await callerFor(db, null)).library.get({}))).toEqual({
      code: "UNAUTHORIZED",
      domain: "missing_api_key",
    });
    expect(await rejection((await callerFor(db, "shelf_unknown")).library.get({}))).toEqual({
      code: "UNAUTHORIZED",
      domain: "invalid_api_key",
    });
    expect(await rejection((await callerFor(db, orders.key)).products.detail({ product: product.id }))).toEqual({
      code: "FORBIDDEN",
      domain: "missing_api_key_ability",
    });
    expect(await rejection((await callerFor(db, reader.key)).products.detail({ product: product.id }))).toEqual({
      code: "FORBIDDEN",
      domain: "product_entitlement_required",
    });
    expect(await rejection((await callerFor(db, reader.key)).products.get({ product: 2_000_000_000 }))).toEqual({
      code: "NOT_FOUND",
      domain: "not_found",
    });
    await grantEntitlement(db, account.id, product.id);
    const detail = await (await callerFor(db, reader.key)).products.detail({ product: product.id });
    expect(detail.product).toMatchObject({ id: product.id, entitled: true });
  });

  it("refuses invalid input after the key check, with the zod issues as cause", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const { key } = await createKey(db, account.id);
    const caller = await callerFor(db, key);
    const error = await caller.products.list({ sort: "sideways" as never }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
  });
});
