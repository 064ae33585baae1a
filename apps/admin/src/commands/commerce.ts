import { orderAdmin, subscriptionAdmin } from "@shelf/api";
import {
  flag,
  optionalDate,
  optionalInteger,
  optionalString,
  requiredInteger,
  requiredString,
  UsageError,
} from "../args";
import { byIdCommand, type Command, forAccountCommand } from "../command";

const money = (cents: number, currency: string) => `${cents} ${currency} (minor units)`;

export const orderCreate = forAccountCommand({
  name: "order:create",
  summary: "Record an order of a product, with its item, invoice and the entitlement it grants",
  synopsis:
    "--email E --product ID [--quantity N] [--currency KRW|USD] [--status paid|pending] [--discount-cents N] [--receipt-url URL]",
  details: [
    "Prices come from the product, in its currency, or converted with the stored rate (exchange-rate:set) into",
    "--currency. Amounts are in the currency's minor unit (cents; won for KRW, VAT included). A paid order (the",
    "default) grants the product at once; a pending one grants nothing. Everything is written in one transaction.",
  ],
  options: {
    email: { type: "string" },
    product: { type: "string" },
    quantity: { type: "string" },
    currency: { type: "string" },
    status: { type: "string" },
    "discount-cents": { type: "string" },
    "receipt-url": { type: "string" },
  },
  input(values) {
    const status = optionalString(values, "status") ?? "paid";
    if (status !== "paid" && status !== "pending")
      throw new UsageError(`--status must be paid or pending, got "${status}".`);
    return {
      productId: requiredInteger(values, "product", { min: 1 }),
      quantity: optionalInteger(values, "quantity", { min: 1 }),
      currency: optionalString(values, "currency"),
      status: status as "paid" | "pending",
      discountCents: optionalInteger(values, "discount-cents"),
      receiptUrl: optionalString(values, "receipt-url"),
    };
  },
  act: orderAdmin.createOrder,
  describe: (order, email) => {
    const vat = order.vat_cents === null ? "" : `, VAT ${order.vat_cents} of it`;
    return `Recorded order ${order.number} (id ${order.id}, ${order.status}) for ${email}: ${money(order.total_cents, order.currency)}${vat}; invoice ${order.invoice.number}; ${order.entitlement_ids.length} entitlement(s) granted.`;
  },
});

export const orderRefund = byIdCommand({
  name: "order:refund",
  summary: "Refund an order: it is marked refunded and what it granted is revoked",
  synopsis: "--id ID",
  act: orderAdmin.refundOrder,
  describe: (refunded) =>
    `Refunded order ${refunded.number} at ${refunded.refunded_at}: ${refunded.revoked_entitlement_ids.length} entitlement(s) revoked.`,
});

export const invoiceCreate = forAccountCommand({
  name: "invoice:create",
  summary: "Record an invoice of an account",
  synopsis:
    "--email E --total-cents N --currency C [--status draft|open|paid|void|uncollectible] [--order ID] [--subscription ID] [--due ISO]",
  options: {
    email: { type: "string" },
    "total-cents": { type: "string" },
    currency: { type: "string" },
    status: { type: "string" },
    order: { type: "string" },
    subscription: { type: "string" },
    due: { type: "string" },
  },
  input: (values) => ({
    totalCents: requiredInteger(values, "total-cents"),
    currency: requiredString(values, "currency"),
    status: optionalString(values, "status") as "open" | undefined,
    orderId: optionalInteger(values, "order", { min: 1 }),
    subscriptionId: optionalInteger(values, "subscription", { min: 1 }),
    dueAt: optionalDate(values, "due"),
  }),
  act: orderAdmin.createInvoice,
  describe: (invoice, email) =>
    `Recorded invoice ${invoice.number} (id ${invoice.id}, ${invoice.status}) for ${email}: ${money(invoice.total_cents, invoice.currency)}.`,
});

export const paymentMethodAdd = forAccountCommand({
  name: "payment-method:add",
  summary: "Put a card on file by brand, last four digits and expiry (never a full number)",
  synopsis: "--email E --brand B --last4 NNNN --exp MM/YY [--default]",
  options: {
    email: { type: "string" },
    brand: { type: "string" },
    last4: { type: "string" },
    exp: { type: "string" },
    default: { type: "boolean" },
  },
  input(values) {
    const exp = requiredString(values, "exp");
    const match = /^(\d{1,2})\/(\d{2}|\d{4})$/.exec(exp.trim());
    if (!match) throw new UsageError(`--exp must be MM/YY, got "${exp}".`);
    const year = Number(match[2]);
    return {
      brand: requiredString(values, "brand"),
      last4: requiredString(values, "last4"),
      expMonth: Number(match[1]),
      expYear: year < 100 ? 2000 + year : year,
      isDefault: flag(values, "default"),
    };
  },
  act: orderAdmin.addPaymentMethod,
  describe: (card, email) =>
    `Added ${card.brand} •••• ${card.last4} (expires ${String(card.exp_month).padStart(2, "0")}/${card.exp_year})${card.is_default ? ", the default" : ""} for ${email}.`,
});

export const subscriptionCreate = forAccountCommand({
  name: "subscription:create",
  summary: "Start a subscription to a product (its first order, and what it grants)",
  synopsis: "--email E --product ID [--pass] [--trial] [--until ISO]",
  details: [
    "Renews at the product's price. Without --trial, a paid order for the first period grants the product until",
    "--until (default a month); --trial grants it for the trial (default 14 days) with no order. --pass makes it",
    "an all-access pass (every app, through the pass check) instead of access to the product itself.",
  ],
  options: {
    email: { type: "string" },
    product: { type: "string" },
    pass: { type: "boolean" },
    trial: { type: "boolean" },
    until: { type: "string" },
  },
  input: (values) => ({
    productId: requiredInteger(values, "product", { min: 1 }),
    pass: flag(values, "pass"),
    trial: flag(values, "trial"),
    until: optionalDate(values, "until"),
  }),
  act: subscriptionAdmin.createSubscription,
  describe: (subscription, email) => {
    const order = subscription.order ? `, order ${subscription.order.number}` : "";
    return `Started subscription ${subscription.id} (${subscription.status}${subscription.is_pass ? ", all-access pass" : ""}) to product ${subscription.product_id} for ${email} until ${subscription.ends_at}${order}.`;
  },
});

export const subscriptionCancel: Command = {
  name: "subscription:cancel",
  summary: "Cancel a subscription, at once or at the end of its period",
  synopsis: "--id ID [--at-period-end]",
  details: ["At once, what it granted ends now; --at-period-end lets it run to its end without renewing."],
  options: { id: { type: "string" }, "at-period-end": { type: "boolean" } },
  prepare(values) {
    const id = requiredInteger(values, "id", { min: 1 });
    const atPeriodEnd = flag(values, "at-period-end");
    return async ({ db }) => {
      const cancelled = await subscriptionAdmin.cancelSubscription(db, id, { atPeriodEnd });
      return {
        json: cancelled,
        text: cancelled.cancel_at_period_end
          ? `Subscription ${cancelled.id} will end on ${cancelled.ends_at} without renewing.`
          : `Subscription ${cancelled.id} is ${cancelled.status}${cancelled.ends_at ? ` since ${cancelled.ends_at}` : ""}.`,
      };
    };
  },
};

export const subscriptionResume = byIdCommand({
  name: "subscription:resume",
  summary: "Renew again a subscription cancelled at the end of its period",
  synopsis: "--id ID",
  details: ["Only while its period runs; one that ended is bought again."],
  act: subscriptionAdmin.resumeSubscription,
  describe: (resumed) => `Subscription ${resumed.id} renews again on ${resumed.ends_at}.`,
});

export const exchangeRateSet: Command = {
  name: "exchange-rate:set",
  summary: "Store how many won one unit of a currency is worth, and the source",
  synopsis: "--currency C --krw N --source S",
  details: ["Subscriptions estimate renewals in KRW with it; orders in another currency are priced with it."],
  options: { currency: { type: "string" }, krw: { type: "string" }, source: { type: "string" } },
  prepare(values) {
    const raw = requiredString(values, "krw");
    const krwPerUnit = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(krwPerUnit > 0)) {
      throw new UsageError(`--krw must be a positive number such as 1384.25, got "${raw}".`);
    }
    const input = {
      currency: requiredString(values, "currency"),
      krwPerUnit,
      source: requiredString(values, "source"),
    };
    return async ({ db }) => {
      const rate = await subscriptionAdmin.setExchangeRate(db, input);
      return {
        json: rate,
        text: `1 ${rate.currency} = ${rate.krw_per_unit} KRW (${rate.source}), as of ${rate.as_of}.`,
      };
    };
  },
};
