import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPaymentMethod } from "../../commerce/order-admin";
import { createAccount, createProduct } from "../../testing/factories";
import { signedInCaller } from "../../testing/harness";
import { createSubscription } from "../subscriptions/admin-service";

let testDb: TestDatabase;

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb?.drop());

const card = (accountId: number, last4: string) =>
  addPaymentMethod(testDb.db, { accountId, brand: "visa", last4, expMonth: 12, expYear: 2040 });

async function cardsOf(accountId: number) {
  return testDb.db
    .select({ id: schema.paymentMethods.id, isDefault: schema.paymentMethods.isDefault })
    .from(schema.paymentMethods)
    .where(eq(schema.paymentMethods.accountId, accountId))
    .orderBy(schema.paymentMethods.id);
}

async function renewalCard(subscriptionId: number) {
  const [row] = await testDb.db
    .select({ card: schema.subscriptions.paymentMethodId })
    .from(schema.subscriptions)
    .where(eq(schema.subscriptions.id, subscriptionId));
  return row?.card;
}

describe("cards on the billing page", () => {
  it("makes a card the default (renewals move to it) and removes one (the next becomes the default)", async () => {
    const { db } = testDb;
    const account = await createAccount(db);
    const first = await card(account.id, "4242");
    const second = await card(account.id, "1881");
    const subscription = await createSubscription(db, {
      accountId: account.id,
      productId: (await createProduct(db)).id,
    });
    expect((await cardsOf(account.id)).find((row) => row.isDefault)?.id).toBe(first.id);
    expect(await renewalCard(subscription.id)).toBe(first.id);
    const { caller } = await signedInCaller(db, account.id);

    await caller.orders.makeDefaultCard({ id: second.id });
    expect(await cardsOf(account.id)).toEqual([
      { id: first.id, isDefault: false },
      { id: second.id, isDefault: true },
    ]);
    expect(await renewalCard(subscription.id)).toBe(second.id);

    expect(await caller.orders.removeCard({ id: second.id })).toEqual({ removed: second.id, default_card: first.id });
    expect(await cardsOf(account.id)).toEqual([{ id: first.id, isDefault: true }]);
    expect(await renewalCard(subscription.id)).toBe(first.id);
    expect(await caller.orders.removeCard({ id: first.id })).toEqual({ removed: first.id, default_card: null });
    expect(await renewalCard(subscription.id)).toBeNull();
  });

  it("never touches another account's card", async () => {
    const { db } = testDb;
    const mine = await createAccount(db);
    const theirs = await createAccount(db);
    const theirCard = await card(theirs.id, "0005");
    await card(mine.id, "4242");
    const { caller } = await signedInCaller(db, mine.id);
    await expect(caller.orders.removeCard({ id: theirCard.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller.orders.makeDefaultCard({ id: theirCard.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await cardsOf(theirs.id)).toEqual([{ id: theirCard.id, isDefault: true }]);
  });
});
