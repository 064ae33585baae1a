import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import {
  InvoicesData,
  OrderShowData,
  OrdersData,
  PaymentMethodsData,
  PublicDisclosureData,
  SubscriptionsData,
} from "@shelf/api/schemas";
import { contractMismatch } from "@shelf/api/testing";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { repoRoot } from "./admin-cli";
import { operatedSuite } from "./operated-suite";

/**
 * What the commerce issue calls done, against the production server: an operator records an order and a
 * subscription with the CLI, and the buyer's key reads them back exactly in the contract's shapes while another
 * account's key sees none of it; the legacy front host reaches the same API with only the forwarded headers; crash
 * reports are limited per address; the disclosure comes from configuration.
 */

const suite = operatedSuite("shelf-commerce-e2e-");
let buyerKey: string;
let strangerKey: string;
let orderId: number;
let subscriptionId: number;

const { admin } = suite;

/** A real HTTP request to the server, naming the host it is for. */
function get(
  pathname: string,
  options: { key?: string; host?: string; headers?: Record<string, string>; method?: string; body?: unknown } = {},
) {
  const url = new URL(suite.server.url);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: pathname,
        method: options.method ?? "GET",
        headers: {
          host: options.host ?? url.host,
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(body ? { "content-type": "application/json" } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode as number, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The answer's body, checked to be exactly in the contract's shape. */
async function exactly<Schema extends z.ZodType>(schema: Schema, pathname: string, key: string, host?: string) {
  const answer = await get(pathname, { key, host });
  expect(answer.status, `${pathname}: ${answer.text}`).toBe(200);
  expect(contractMismatch(schema, answer.text), pathname).toBeNull();
  return JSON.parse(answer.text) as z.infer<Schema>;
}

beforeAll(async () => {
  await admin("account:create", "--email", "buyer@example.test", "--name", "Buyer");
  await admin("account:create", "--email", "stranger@example.test", "--name", "Stranger");
  const product = (await admin("product:create", "--name", "Won Writer", "--price-cents", "39000", "--currency", "KRW"))
    .id;
  const plan = (await admin("product:create", "--name", "Cloud Plan", "--price-cents", "900", "--currency", "USD")).id;
  await admin(
    "payment-method:add",
    "--email",
    "buyer@example.test",
    "--brand",
    "visa",
    "--last4",
    "4242",
    "--exp",
    "12/30",
  );
  await admin("exchange-rate:set", "--currency", "USD", "--krw", "1390", "--source", "Test Bank");
  orderId = (
    await admin(
      "order:create",
      "--email",
      "buyer@example.test",
      "--product",
      String(product),
      "--discount-cents",
      "3000",
    )
  ).id;
  subscriptionId = (await admin("subscription:create", "--email", "buyer@example.test", "--product", String(plan))).id;
  const abilities = "orders.read,subscriptions.read,products.read";
  buyerKey = (await admin("key:create", "--email", "buyer@example.test", "--abilities", abilities)).key;
  strangerKey = (await admin("key:create", "--email", "stranger@example.test", "--abilities", abilities)).key;
  const disclosure = path.join(suite.dataDir, "disclosure.json");
  await fs.writeFile(disclosure, await fs.readFile(path.join(repoRoot, "apps/web/config/disclosure.example.json")));
  await suite.start({
    SHELF_LEGACY_URL: "http://legacy.shelf.test",
    SHELF_DISCLOSURE_FILE: disclosure,
  });
}, 300_000);

describe("commerce, as an operator records it and a buyer reads it", () => {
  it("reads back the order and the subscription exactly in the contract's shapes; another account sees none of it", async () => {
    const orders = await exactly(OrdersData, "/api/orders", buyerKey);
    expect(orders.orders).toHaveLength(2);
    const order = orders.orders.find((entry) => entry.id === orderId);
    expect(order).toMatchObject({
      currency: "KRW",
      total_cents: 36000,
      supply_cents: 32727,
      vat_cents: 3273,
      status: "paid",
    });
    expect(order?.items[0]?.entitlements[0]).toMatchObject({ grant_type: "purchase", active: true });
    const shown = await exactly(OrderShowData, `/api/orders/${orderId}`, buyerKey);
    expect(shown.order).toEqual(order);
    const subscriptions = await exactly(SubscriptionsData, "/api/subscriptions", buyerKey);
    expect(subscriptions.subscriptions).toEqual([
      expect.objectContaining({
        id: subscriptionId,
        status: "active",
        can_cancel: true,
        renewal_amount_cents: 900,
        renewal_currency: "USD",
        payment_method_last4: "4242",
        estimated_krw_amount: 12510,
        estimated_krw_exchange_source: "Test Bank",
      }),
    ]);
    const invoices = await exactly(InvoicesData, "/api/invoices?limit=1", buyerKey);
    expect(invoices.invoices).toHaveLength(1);
    expect(invoices.next_cursor).not.toBeNull();
    const cards = await exactly(PaymentMethodsData, "/api/payment-methods", buyerKey);
    expect(cards.payment_methods).toEqual([
      expect.objectContaining({ brand: "visa", last4: "4242", masked_number: "•••• 4242" }),
    ]);

    expect((await exactly(OrdersData, "/api/orders", strangerKey)).orders).toEqual([]);
    expect((await exactly(SubscriptionsData, "/api/subscriptions", strangerKey)).subscriptions).toEqual([]);
    expect((await exactly(InvoicesData, "/api/invoices", strangerKey)).invoices).toEqual([]);
    expect((await exactly(PaymentMethodsData, "/api/payment-methods", strangerKey)).payment_methods).toEqual([]);
    const foreign = await get(`/api/orders/${orderId}`, { key: strangerKey });
    const missing = await get("/api/orders/2000000000", { key: strangerKey });
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.text)).toEqual(JSON.parse(missing.text));
  });

  it("answers on the legacy host with only the forwarded headers, and nothing but /api there", async () => {
    const legacy = await exactly(OrdersData, "/api/orders", buyerKey, "legacy.shelf.test");
    expect(legacy).toEqual(await exactly(OrdersData, "/api/orders", buyerKey));
    // Accept-Language is forwarded: the labels follow it.
    const korean = await get(`/api/orders/${orderId}`, {
      key: buyerKey,
      host: "legacy.shelf.test",
      headers: { "accept-language": "ko" },
    });
    expect(JSON.parse(korean.text).order.status_label).toBe("결제 완료");
    // If-None-Match is not: the legacy host's client gets the whole answer again.
    const first = await get("/api/orders", { key: buyerKey });
    const revalidated = await get("/api/orders", {
      key: buyerKey,
      headers: { "if-none-match": first.headers.etag as string },
    });
    expect(revalidated.status).toBe(304);
    const throughLegacy = await get("/api/orders", {
      key: buyerKey,
      host: "legacy.shelf.test",
      headers: { "if-none-match": first.headers.etag as string, cookie: "session=whatever" },
    });
    expect(throughLegacy.status).toBe(200);
    for (const pathname of ["/", "/docs/api", "/healthz"]) {
      const answer = await get(pathname, { host: "legacy.shelf.test" });
      expect(answer.status, pathname).toBe(404);
      expect(answer.headers["content-type"]).toContain("application/json");
    }
    expect((await get("/docs/api")).status).toBe(200);
  });

  it("takes five crash reports a minute from one address, then 429; and publishes the configured disclosure", async () => {
    const report = {
      app_bundle_id: "com.example.writer",
      app_version: "1.0.0",
      error_type: "crash",
      error_message: "EXC_BAD_ACCESS",
    };
    const statuses = [];
    for (let index = 0; index < 7; index++) {
      statuses.push((await get("/api/error-reports", { method: "POST", body: report })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
    const disclosure = await get("/api/public/disclosure");
    expect(disclosure.status).toBe(200);
    expect(contractMismatch(PublicDisclosureData, disclosure.text)).toBeNull();
    expect(JSON.parse(disclosure.text).ko.company_name).toBe("주식회사 셸프");
    expect(disclosure.headers["cache-control"]).toBe("public, max-age=3600");
  });
});
