import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addPaymentMethod, createInvoice, createOrder, refundOrder } from "../../commerce/order-admin";
import { createAccountWithKey, createKey, createProduct } from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { setExchangeRate } from "../subscriptions/admin-service";
import { InvoicesData, OrderShowData, OrdersData, PaymentMethodsData } from "./schemas";

const { testDb, request } = withApiSuite();

const DAY_MS = 86_400_000;
const buyer = () => createAccountWithKey(testDb.db, { abilities: ["orders.read", "products.read", "device.install"] });

describe("orders", () => {
  it("answers orders with items, what each granted, money in minor units and the KRW VAT split", async () => {
    const { account, key } = await buyer();
    const won = await createProduct(testDb.db, {
      name: "Hangul Keys",
      unitPriceCents: 33000,
      listPriceCents: 44000,
      currency: "KRW",
    });
    const dollars = await createProduct(testDb.db, { name: "Dollar Tool", unitPriceCents: 1999, currency: "USD" });
    await addPaymentMethod(testDb.db, {
      accountId: account.id,
      brand: "visa",
      last4: "4242",
      expMonth: 12,
      expYear: 2030,
    });
    const krw = await createOrder(testDb.db, {
      accountId: account.id,
      productId: won.id,
      quantity: 2,
      discountCents: 6000,
    });
    const usd = await createOrder(testDb.db, { accountId: account.id, productId: dollars.id });

    const response = await request("/api/orders", { key });
    expect(response.status).toBe(200);
    expect(contractMismatch(OrdersData, response.text)).toBeNull();
    expect(response.body.orders.map((order: { id: number }) => order.id)).toEqual([usd.id, krw.id]);
    const [usdOrder, krwOrder] = response.body.orders;
    expect(krwOrder).toMatchObject({
      number: krw.number,
      status: "paid",
      status_label: "Paid",
      currency: "KRW",
      subtotal_cents: 66000,
      discount_total_cents: 6000,
      total_cents: 60000,
      supply_cents: 54545,
      vat_cents: 5455,
      payment_method: "card",
      can_withdraw: true,
      paid_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      withdrawal_requested_at: null,
      receipt_url: null,
      subscription_name: null,
    });
    expect(krwOrder.number).toMatch(/^SH-\d{4}-\d{6}$/);
    expect(krwOrder.items).toEqual([
      expect.objectContaining({
        product_id: won.id,
        product_name: "Hangul Keys",
        product_url: `http://shelf.test/api/products/${won.id}`,
        list_unit_price_cents: 44000,
        unit_price_cents: 33000,
        quantity: 2,
        subtotal_cents: 66000,
        discount_total_cents: 6000,
        total_cents: 60000,
      }),
    ]);
    expect(krwOrder.items[0].entitlements).toEqual([
      expect.objectContaining({
        product_id: won.id,
        order_id: krw.id,
        order_item_id: krw.item_id,
        grant_type: "purchase",
        grant_type_label: "Purchase",
        status: "active",
        access_state: "full",
        active: true,
        source_quantity: 2,
        product_detail_url: `http://shelf.test/api/products/${won.id}/detail`,
      }),
    ]);
    expect(usdOrder).toMatchObject({ currency: "USD", total_cents: 1999, supply_cents: null, vat_cents: null });

    const korean = await request(`/api/orders/${krw.id}`, { key, headers: { "accept-language": "ko" } });
    expect(korean.status).toBe(200);
    expect(contractMismatch(OrderShowData, korean.text)).toBeNull();
    expect(korean.headers.get("content-language")).toBe("ko");
    expect(korean.body.order).toMatchObject({ status_label: "결제 완료" });
    expect(korean.body.order.items[0].entitlements[0]).toMatchObject({
      grant_type_label: "구매",
      status_label: "사용 중",
      access_state_label: "사용 및 업데이트",
    });
    // The order granted the product: the library has it.
    const library = await request("/api/library", { key });
    expect(library.body.items.map((item: { product: { id: number } }) => item.product.id)).toContain(won.id);
  });

  it("answers another account's order exactly as a missing one, and shows a product key only its product's orders", async () => {
    const owner = await buyer();
    const stranger = await buyer();
    const product = await createProduct(testDb.db);
    const other = await createProduct(testDb.db);
    const order = await createOrder(testDb.db, { accountId: owner.account.id, productId: product.id });
    const otherOrder = await createOrder(testDb.db, { accountId: owner.account.id, productId: other.id });
    const foreign = await request(`/api/orders/${order.id}`, { key: stranger.key });
    const missing = await request("/api/orders/2000000000", { key: stranger.key });
    expect(foreign.status).toBe(404);
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });
    expect(foreign.body.error).toBe("order_not_found");
    expect((await request("/api/orders", { key: stranger.key })).body.orders).toEqual([]);

    const scoped = await createKey(testDb.db, owner.account.id, { productId: product.id, abilities: ["orders.read"] });
    const seen = await request("/api/orders", { key: scoped.key });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.orders.map((row: { id: number }) => row.id)).toEqual([order.id]);
    expect((await request(`/api/orders/${otherOrder.id}`, { key: scoped.key })).body.error).toBe("order_not_found");
  });

  it("lets a buyer withdraw within 7 days of paying, until the product is used, and never once refunded", async () => {
    const { account, key } = await buyer();
    const product = await createProduct(testDb.db);
    const fresh = await createOrder(testDb.db, { accountId: account.id, productId: product.id });
    const old = await createOrder(testDb.db, { accountId: account.id, productId: product.id });
    await testDb.db
      .update(schema.orders)
      .set({ paidAt: new Date(Date.now() - 8 * DAY_MS) })
      .where(eq(schema.orders.id, old.id));
    const pending = await createOrder(testDb.db, { accountId: account.id, productId: product.id, status: "pending" });
    const withdraw = async () =>
      Object.fromEntries(
        (await request("/api/orders", { key })).body.orders.map((row: { id: number; can_withdraw: boolean }) => [
          row.id,
          row.can_withdraw,
        ]),
      );
    expect(await withdraw()).toEqual({ [fresh.id]: true, [old.id]: false, [pending.id]: false });
    expect(pending.entitlement_ids).toEqual([]);

    const installed = await request("/api/device/installs", {
      method: "POST",
      key,
      body: { product_id: product.id, version: "1.0.0" },
    });
    expect(installed.status).toBe(201);
    expect((await withdraw())[fresh.id]).toBe(false);
  });

  it("keeps a buyer's withdrawal open when only another buyer used the same product", async () => {
    const product = await createProduct(testDb.db);
    const mine = await buyer();
    const theirs = await buyer();
    // Order and item ids drift apart (an order of two lines), so an item matched by its own id cannot pass for the order's.
    await testDb.db.insert(schema.orderItems).values({
      orderId: (await createOrder(testDb.db, { accountId: theirs.account.id, productId: product.id })).id,
      productId: product.id,
      productName: "second line",
      listUnitPriceCents: 0,
      unitPriceCents: 0,
      quantity: 1,
      subtotalCents: 0,
      discountTotalCents: 0,
      totalCents: 0,
    });
    const order = await createOrder(testDb.db, { accountId: mine.account.id, productId: product.id });
    const installed = await request("/api/device/installs", {
      method: "POST",
      key: theirs.key,
      body: { product_id: product.id, version: "1.0.0" },
    });
    expect(installed.status).toBe(201);
    const shown = (await request(`/api/orders/${order.id}`, { key: mine.key })).body.order;
    expect(shown.can_withdraw).toBe(true);
  });

  it("refunds an order once: it is refunded, what it granted is revoked, and the library drops the product", async () => {
    const { account, key } = await buyer();
    const product = await createProduct(testDb.db);
    const order = await createOrder(testDb.db, { accountId: account.id, productId: product.id });
    const refunded = await refundOrder(testDb.db, order.id);
    expect(refunded).toMatchObject({ status: "refunded", revoked_entitlement_ids: order.entitlement_ids });
    expect((await refundOrder(testDb.db, order.id)).revoked_entitlement_ids).toEqual([]);
    const shown = (await request(`/api/orders/${order.id}`, { key })).body.order;
    expect(shown).toMatchObject({ status: "refunded", status_label: "Refunded", can_withdraw: false });
    expect(shown.items[0].entitlements[0]).toMatchObject({ status: "revoked", active: false, access_state: "revoked" });
    expect((await request("/api/library", { key })).body.items).toEqual([]);
    const pending = await createOrder(testDb.db, { accountId: account.id, productId: product.id, status: "pending" });
    await expect(refundOrder(testDb.db, pending.id)).rejects.toThrow(/only a paid order/);
  });

  it("prices an order in another currency through the stored rate, and says when there is none", async () => {
    const { account } = await buyer();
    const product = await createProduct(testDb.db, { unitPriceCents: 1000, currency: "EUR" });
    await expect(
      createOrder(testDb.db, { accountId: account.id, productId: product.id, currency: "KRW" }),
    ).rejects.toThrow();
    await setExchangeRate(testDb.db, { currency: "EUR", krwPerUnit: 1500.5, source: "Test bank" });
    const order = await createOrder(testDb.db, { accountId: account.id, productId: product.id, currency: "krw" });
    expect(order).toMatchObject({ currency: "KRW", total_cents: 15005, supply_cents: 13641, vat_cents: 1364 });
  });
});

describe("GET /api/invoices", () => {
  async function seedInvoices(accountId: number, count: number, status: "paid" | "open" = "paid") {
    for (let index = 0; index < count; index++) {
      await createInvoice(testDb.db, { accountId, totalCents: 1000 + index, currency: "USD", status });
    }
  }

  it("pages newest first by cursor, never skipping or repeating an invoice while new ones arrive", async () => {
    const { account, key } = await buyer();
    await seedInvoices(account.id, 25);
    // Others arrive all the while, from another writer: always at the top of the list, never below a cursor.
    let paging = true;
    const writer = (async () => {
      let written = 0;
      while (paging) {
        await createInvoice(testDb.db, { accountId: account.id, totalCents: 1, currency: "USD", status: "open" });
        written++;
      }
      return written;
    })();
    const first = await request("/api/invoices?limit=10&status=paid", { key });
    expect(first.status).toBe(200);
    expect(contractMismatch(InvoicesData, first.text)).toBeNull();
    const seen: number[] = first.body.invoices.map((invoice: { id: number }) => invoice.id);
    let cursor = first.body.next_cursor;
    expect(cursor).toBe(seen.at(-1));
    while (cursor !== null) {
      const page = await request(`/api/invoices?limit=10&status=paid&after=${cursor}`, { key });
      seen.push(...page.body.invoices.map((invoice: { id: number }) => invoice.id));
      cursor = page.body.next_cursor;
    }
    paging = false;
    expect(await writer).toBeGreaterThan(0);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    // Without a filter, the pages hold the newcomers too, still without a repeat.
    const all: number[] = [];
    for (let after: number | null = null, first = true; first || after !== null; first = false) {
      const page = await request(`/api/invoices?limit=7${after ? `&after=${after}` : ""}`, { key });
      all.push(...page.body.invoices.map((invoice: { id: number }) => invoice.id));
      after = page.body.next_cursor;
    }
    expect(new Set(all).size).toBe(all.length);
    expect((await request("/api/invoices", { key })).body.limit).toBe(20);
  });

  it("filters by status, and refuses an unknown status, a bad cursor or limit with 422", async () => {
    const { account, key } = await buyer();
    await seedInvoices(account.id, 3, "paid");
    await seedInvoices(account.id, 2, "open");
    const open = await request("/api/invoices?status=open", { key });
    expect(open.body.invoices.map((invoice: { status: string }) => invoice.status)).toEqual(["open", "open"]);
    expect(open.body.invoices[0].status_label).toBe("Due");
    for (const query of [
      "status=unpaid",
      "after=0",
      "after=-3",
      "after=abc",
      "after=1.5",
      "limit=0",
      "limit=101",
      "limit=x",
    ]) {
      const response = await request(`/api/invoices?${query}`, { key });
      expect(response.status, query).toBe(422);
      expect(Object.keys(response.body.errors), query).toEqual([query.split("=")[0]]);
    }
    expect((await request("/api/invoices?limit=100", { key })).status).toBe(200);
  });

  it("shows each account only its own invoices, with the KRW split", async () => {
    const { account, key } = await buyer();
    const other = await buyer();
    await createInvoice(testDb.db, { accountId: account.id, totalCents: 11000, currency: "KRW" });
    await seedInvoices(other.account.id, 4);
    const mine = (await request("/api/invoices", { key })).body.invoices;
    expect(mine).toEqual([expect.objectContaining({ total_cents: 11000, supply_cents: 10000, vat_cents: 1000 })]);
  });
});

describe("GET /api/payment-methods", () => {
  it("answers brand, last four and expiry only; a product key sees none, another account none of them", async () => {
    const { account, key } = await buyer();
    const other = await buyer();
    const first = await addPaymentMethod(testDb.db, {
      accountId: account.id,
      brand: "Visa",
      last4: "4242",
      expMonth: 1,
      expYear: 2020,
    });
    const second = await addPaymentMethod(testDb.db, {
      accountId: account.id,
      brand: "mastercard",
      last4: "0005",
      expMonth: 12,
      expYear: 2099,
      isDefault: true,
    });
    const response = await request("/api/payment-methods", { key });
    expect(contractMismatch(PaymentMethodsData, response.text)).toBeNull();
    expect(response.body.payment_methods).toEqual([
      {
        id: second.id,
        brand: "mastercard",
        last4: "0005",
        masked_number: "•••• 0005",
        exp_month: 12,
        exp_year: 2099,
        expired: false,
        is_default: true,
      },
      {
        id: first.id,
        brand: "visa",
        last4: "4242",
        masked_number: "•••• 4242",
        exp_month: 1,
        exp_year: 2020,
        expired: true,
        is_default: false,
      },
    ]);
    expect((await request("/api/payment-methods", { key: other.key })).body.payment_methods).toEqual([]);
    const product = await createProduct(testDb.db);
    const scoped = await createKey(testDb.db, account.id, { productId: product.id, abilities: ["orders.read"] });
    expect((await request("/api/payment-methods", { key: scoped.key })).body.payment_methods).toEqual([]);
    for (const last4 of ["4242424242424242", "42", "abcd", "42 4"]) {
      await expect(
        addPaymentMethod(testDb.db, { accountId: account.id, brand: "visa", last4, expMonth: 1, expYear: 2030 }),
      ).rejects.toThrow();
    }
    const stored = await testDb.db
      .select()
      .from(schema.paymentMethods)
      .where(eq(schema.paymentMethods.accountId, account.id));
    expect(stored.every((row) => /^[0-9]{4}$/.test(row.last4))).toBe(true);
  });
});
