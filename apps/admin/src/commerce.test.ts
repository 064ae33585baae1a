import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { reportAdmin } from "@shelf/api";
import { createAccount, createProduct } from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliHarness } from "./cli-harness";

let testDb: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-admin-commerce-"));
});
afterAll(async () => {
  await testDb.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const { adminJson, expectFailure } = cliHarness(() => ({ databaseUrl: testDb.url, dataDir }));
const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;

describe("the commerce commands", () => {
  it("records a card, orders, a refund, an invoice and a subscription, and refuses mistakes in one line", async () => {
    const email = uniqueEmail("buyer");
    const account = await createAccount(testDb.db, { email });
    const product = await createProduct(testDb.db, { unitPriceCents: 49000, currency: "KRW" });

    const card = await adminJson(
      "payment-method:add",
      "--email",
      email,
      "--brand",
      "Visa",
      "--last4",
      "4242",
      "--exp",
      "08/29",
    );
    expect(card).toMatchObject({ brand: "visa", last4: "4242", exp_month: 8, exp_year: 2029, is_default: true });
    await expectFailure(
      ["payment-method:add", "--email", email, "--brand", "visa", "--last4", "4242424242424242", "--exp", "08/29"],
      /--last4 exactly the last four digits/,
    );
    await expectFailure(
      ["payment-method:add", "--email", email, "--brand", "visa", "--last4", "4242", "--exp", "8-29"],
      /--exp must be MM\/YY/,
    );

    const order = await adminJson(
      "order:create",
      "--email",
      email,
      "--product",
      String(product.id),
      "--quantity",
      "2",
      "--discount-cents",
      "8000",
    );
    expect(order).toMatchObject({
      status: "paid",
      currency: "KRW",
      total_cents: 90000,
      supply_cents: 81818,
      vat_cents: 8182,
    });
    expect(order.entitlement_ids).toHaveLength(1);
    const pending = await adminJson(
      "order:create",
      "--email",
      email,
      "--product",
      String(product.id),
      "--status",
      "pending",
    );
    expect(pending.entitlement_ids).toEqual([]);
    await expectFailure(
      ["order:create", "--email", email, "--product", String(product.id), "--status", "shipped"],
      /--status must be paid or pending/,
    );
    await expectFailure(["order:create", "--email", email, "--product", "2000000000"], /Product not found/);
    await expectFailure(
      ["order:create", "--email", email, "--product", String(product.id), "--discount-cents", "60000"],
      /must not exceed the subtotal/,
    );
    await expectFailure(
      ["order:create", "--email", email, "--product", String(product.id), "--currency", "EUR"],
      /no exchange rate for/,
    );

    const refunded = await adminJson("order:refund", "--id", String(order.id));
    expect(refunded).toMatchObject({ status: "refunded", revoked_entitlement_ids: order.entitlement_ids });
    await expectFailure(["order:refund", "--id", String(pending.id)], /only a paid order can be refunded/);
    await expectFailure(["order:refund", "--id", "2000000000"], /Order not found/);

    const invoice = await adminJson(
      "invoice:create",
      "--email",
      email,
      "--total-cents",
      "1500",
      "--currency",
      "usd",
      "--due",
      "2027-01-31",
    );
    expect(invoice).toMatchObject({ currency: "USD", status: "open", total_cents: 1500, vat_cents: null });
    await expectFailure(["invoice:create", "--email", email, "--total-cents", "1", "--currency", "ZZZ"], /--currency/);

    await adminJson("exchange-rate:set", "--currency", "usd", "--krw", "1390.5", "--source", "Test Bank");
    await expectFailure(
      ["exchange-rate:set", "--currency", "USD", "--krw", "1,390", "--source", "x"],
      /--krw must be a positive number/,
    );
    const subscription = await adminJson(
      "subscription:create",
      "--email",
      email,
      "--product",
      String(product.id),
      "--until",
      "2030-01-01",
    );
    expect(subscription).toMatchObject({
      status: "active",
      ends_at: "2030-01-01T00:00:00.000Z",
      order: { number: expect.stringMatching(/^SH-/) },
    });
    const cancelled = await adminJson("subscription:cancel", "--id", String(subscription.id), "--at-period-end");
    expect(cancelled).toMatchObject({ status: "active", cancel_at_period_end: true });
    const resumed = await adminJson("subscription:resume", "--id", String(subscription.id));
    expect(resumed).toMatchObject({ status: "active", cancel_at_period_end: false });
    await expectFailure(
      ["subscription:create", "--email", email, "--product", String(product.id), "--until", "2001-01-01"],
      /--until must be in the future/,
    );

    for (const version of ["1.0.0", "1.0.1"]) {
      await reportAdmin.recordErrorReport(testDb.db, {
        app_bundle_id: "com.example.cli",
        app_version: version,
        error_type: "crash",
        error_message: "Segmentation fault at 0x10",
      });
    }
    const reports = await adminJson("report:list", "--app", "com.example.cli");
    expect(reports.groups).toEqual([
      expect.objectContaining({ reports: 2, error_type: "crash", versions: ["1.0.0", "1.0.1"] }),
    ]);

    const stored = await testDb.db
      .select()
      .from(schema.paymentMethods)
      .where(eq(schema.paymentMethods.accountId, account.id));
    expect(stored.map((row) => row.last4)).toEqual(["4242"]);
  }, 300_000);
});
