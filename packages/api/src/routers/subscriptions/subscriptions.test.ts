import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addPaymentMethod } from "../../commerce/order-admin";
import { createAccountWithKey, createKey, createProduct, signedInCaller } from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { cancelSubscription, createSubscription, resumeSubscription, setExchangeRate } from "./admin-service";
import { SubscriptionsData } from "./schemas";

const { testDb, request } = withApiSuite();

const DAY_MS = 86_400_000;
const subscriber = () =>
  createAccountWithKey(testDb.db, {
    abilities: ["subscriptions.read", "orders.read", "products.read", "device.entitlements"],
  });
const list = async (key: string, headers?: Record<string, string>) => {
  const response = await request("/api/subscriptions", { key, headers });
  expect(response.status).toBe(200);
  expect(contractMismatch(SubscriptionsData, response.text)).toBeNull();
  return response.body.subscriptions;
};

describe("GET /api/subscriptions", () => {
  it("derives every state field consistently as a subscription runs, is cancelled at period end, and ends", async () => {
    const { account, key } = await subscriber();
    const card = await addPaymentMethod(testDb.db, {
      accountId: account.id,
      brand: "visa",
      last4: "1881",
      expMonth: 5,
      expYear: 2031,
    });
    const product = await createProduct(testDb.db, { name: "Cloud Sync", unitPriceCents: 900, currency: "USD" });
    const until = new Date(Date.now() + 30 * DAY_MS);
    const created = await createSubscription(testDb.db, { accountId: account.id, productId: product.id, until });
    expect(created.order).not.toBeNull();

    const [running] = await list(key);
    expect(running).toMatchObject({
      id: created.id,
      status: "active",
      status_label: "Active",
      is_trial: false,
      is_pass: false,
      ends_at: until.toISOString(),
      cancelled_at: null,
      order_id: created.order?.id,
      order_number: created.order?.number,
      can_cancel: true,
      cancel_at_period_end: false,
      next_charge_at: until.toISOString(),
      renewal_amount_cents: 900,
      renewal_currency: "USD",
      payment_method_brand: "visa",
      payment_method_last4: card.last4,
      action: "cancel",
      estimated_krw_amount: null,
      update_card_url: `http://shelf.test/account/subscriptions/${created.id}/payment-method`,
    });
    // The first period's order granted the product until the period ends.
    const orders = (await request("/api/orders", { key })).body.orders;
    expect(orders[0]).toMatchObject({ subscription_name: "Cloud Sync" });
    expect(orders[0].items[0].entitlements[0]).toMatchObject({
      grant_type: "subscription",
      access_expires_at: until.toISOString(),
    });

    await setExchangeRate(testDb.db, { currency: "USD", krwPerUnit: 1384.25, source: "Bank of Korea, 2026-11-20" });
    await cancelSubscription(testDb.db, created.id, { atPeriodEnd: true });
    const [ending] = await list(key, { "accept-language": "ko" });
    expect(ending).toMatchObject({
      status: "active",
      status_label: "이용 중",
      can_cancel: false,
      cancel_at_period_end: true,
      next_charge_at: null,
      action: "resume",
      estimated_krw_amount: 12458,
      estimated_krw_exchange_rate: "1384.250000",
      estimated_krw_exchange_source: "Bank of Korea, 2026-11-20",
      estimated_krw_currency: "KRW",
    });
    expect(ending.cancelled_at).not.toBeNull();

    // A period that ended is over, whatever was stored.
    await testDb.db
      .update(schema.subscriptions)
      .set({ startsAt: new Date(Date.now() - 40 * DAY_MS), endsAt: new Date(Date.now() - DAY_MS) })
      .where(eq(schema.subscriptions.id, created.id));
    const [ended] = await list(key);
    expect(ended).toMatchObject({
      status: "expired",
      status_label: "Expired",
      can_cancel: false,
      action: "resubscribe",
      next_charge_at: null,
      update_card_url: null,
    });
  });

  it("ends a subscription at once with what it granted, and keeps trials and passes apart", async () => {
    const { account, key } = await subscriber();
    const product = await createProduct(testDb.db, { name: "Trial Tool" });
    const trial = await createSubscription(testDb.db, { accountId: account.id, productId: product.id, trial: true });
    expect(trial.order).toBeNull();
    const [trialing] = await list(key);
    expect(trialing).toMatchObject({
      status: "trialing",
      status_label: "Trial",
      is_trial: true,
      order_id: null,
      can_cancel: true,
    });
    const library = async () =>
      (await request("/api/library", { key })).body.items.map((item: { product: { id: number } }) => item.product.id);
    expect(await library()).toEqual([product.id]);

    await cancelSubscription(testDb.db, trial.id, { atPeriodEnd: false });
    const [cancelled] = await list(key);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      status_label: "Cancelled",
      can_cancel: false,
      action: "resubscribe",
    });
    expect(await library()).toEqual([]);
    // Cancelling again changes nothing.
    expect((await cancelSubscription(testDb.db, trial.id, { atPeriodEnd: true })).status).toBe("cancelled");

    const passProduct = await createProduct(testDb.db, { name: "All Access" });
    await createSubscription(testDb.db, { accountId: account.id, productId: passProduct.id, pass: true });
    const [pass] = await list(key);
    expect(pass).toMatchObject({ is_pass: true, status: "active" });
    expect(await library()).toEqual([]);
    const check = await request("/api/v1/entitlements/pass-check", { key });
    expect(check.body).toMatchObject({ has_active_pass: true, allowed_apps: ["*"] });
  });

  it("shows an account only its own subscriptions, and a product key only its product's", async () => {
    const { account, key } = await subscriber();
    const other = await subscriber();
    const first = await createProduct(testDb.db);
    const second = await createProduct(testDb.db);
    const one = await createSubscription(testDb.db, { accountId: account.id, productId: first.id });
    await createSubscription(testDb.db, { accountId: account.id, productId: second.id });
    expect(await list(other.key)).toEqual([]);
    expect(await list(key)).toHaveLength(2);
    const scoped = await createKey(testDb.db, account.id, { productId: first.id, abilities: ["subscriptions.read"] });
    expect((await list(scoped.key)).map((row: { id: number }) => row.id)).toEqual([one.id]);
  });
});

describe("cancel at period end and resume (the billing page)", () => {
  it("cancels and resumes the account's own subscription only, and refuses to resume one that ended", async () => {
    const { account, key } = await subscriber();
    const stranger = await subscriber();
    const product = await createProduct(testDb.db);
    const mine = await createSubscription(testDb.db, { accountId: account.id, productId: product.id });
    const theirs = await createSubscription(testDb.db, { accountId: stranger.account.id, productId: product.id });
    const { caller } = await signedInCaller(testDb.db, account.id);
    await expect(caller.subscriptions.cancel({ id: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller.subscriptions.resume({ id: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await list(stranger.key))[0]).toMatchObject({ action: "cancel", cancel_at_period_end: false });

    expect(await caller.subscriptions.cancel({ id: mine.id })).toMatchObject({ cancel_at_period_end: true });
    expect((await list(key))[0]).toMatchObject({ action: "resume", cancel_at_period_end: true, can_cancel: false });
    expect(await caller.subscriptions.resume({ id: mine.id })).toMatchObject({ cancel_at_period_end: false });
    expect((await list(key))[0]).toMatchObject({
      action: "cancel",
      cancel_at_period_end: false,
      cancelled_at: null,
      can_cancel: true,
    });

    await cancelSubscription(testDb.db, mine.id, { atPeriodEnd: false });
    await expect(resumeSubscription(testDb.db, mine.id, { accountId: account.id })).rejects.toMatchObject({
      code: "conflict",
    });
  });
});
