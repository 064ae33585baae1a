import type { Database, Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import { invoiceStatuses } from "@shelf/db/enums";
import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import { z } from "zod";
import { DomainError, parseInput, ValidationError } from "../errors";
import { hasControlCharacter } from "../schemas/common";
import { convert, vatSplit } from "./money";

const { accounts, entitlements, invoices, orderItems, orders, paymentMethods, products } = schema;

/** ISO 4217 codes the platform knows (Intl): a code that merely looks like one (ZZZ) is refused. */
const knownCurrencies = new Set(Intl.supportedValuesOf("currency"));

export const Currency = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, "a three-letter ISO 4217 code")
  .transform((code) => code.toUpperCase())
  .refine((code) => knownCurrencies.has(code), "an ISO 4217 currency code");

/** `SH-2026-000042`: the year and the order sequence. */
async function nextNumber(db: Executor, prefix: "SH" | "INV"): Promise<string> {
  const sequence = prefix === "SH" ? "order_number_seq" : "invoice_number_seq";
  const [row] = (await db.execute(sql`select nextval(${sequence}) as n`)) as unknown as { n: string }[];
  return `${prefix}-${new Date().getUTCFullYear()}-${String(row?.n).padStart(6, "0")}`;
}

/** The account's default card, or its newest, for what an operator records without naming one. */
async function cardOnFile(db: Executor, accountId: number) {
  const [card] = await db
    .select({ id: paymentMethods.id })
    .from(paymentMethods)
    .where(eq(paymentMethods.accountId, accountId))
    .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.id))
    .limit(1);
  return card ?? null;
}

async function requireAccount(db: Executor, accountId: number) {
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw new DomainError("not_found", "Account not found.");
}

export const CreateOrderInput = z.object({
  accountId: z.number().int().positive(),
  productId: z.number().int().positive(),
  quantity: z.number().int().min(1).max(1000).default(1),
  /** The order's currency; the product's price is converted with the stored rate when it is priced in another. */
  currency: Currency.optional(),
  status: z.enum(["paid", "pending"]).default("paid"),
  discountCents: z.number().int().min(0).default(0),
  receiptUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export type CreateOrderInput = z.input<typeof CreateOrderInput>;

/**
 * `order:create`: an order of one product, its item, its invoice and, once paid, the entitlement it grants (a
 * purchase for the quantity bought), in one transaction. A KRW total carries its VAT split. A subscription's order
 * grants a `subscription` entitlement for its period, or none for a pass.
 */
export async function createOrder(
  db: Executor,
  rawInput: CreateOrderInput,
  options: { grantType?: "purchase" | "subscription" | null; accessExpiresAt?: Date; subscriptionId?: number } = {},
) {
  const input = parseInput(CreateOrderInput, rawInput);
  const grantType = options.grantType === undefined ? "purchase" : options.grantType;
  const work = async (t: Executor) => {
    await requireAccount(t, input.accountId);
    const [product] = await t.select().from(products).where(eq(products.id, input.productId));
    if (!product) throw new DomainError("not_found", "Product not found.");
    const currency = input.currency ?? product.currency;
    const unitPriceCents = await convert(t, product.unitPriceCents, product.currency, currency);
    const listUnitPriceCents = await convert(
      t,
      product.listPriceCents ?? product.unitPriceCents,
      product.currency,
      currency,
    );
    const subtotalCents = unitPriceCents * input.quantity;
    if (input.discountCents > subtotalCents) {
      throw new ValidationError({ discountCents: [`must not exceed the subtotal (${subtotalCents})`] });
    }
    const totalCents = subtotalCents - input.discountCents;
    const split = vatSplit(currency, totalCents);
    const card = totalCents > 0 ? await cardOnFile(t, input.accountId) : null;
    const paid = input.status === "paid";
    const now = new Date();
    const [order] = await t
      .insert(orders)
      .values({
        accountId: input.accountId,
        number: await nextNumber(t, "SH"),
        status: input.status,
        currency,
        subtotalCents,
        discountTotalCents: input.discountCents,
        totalCents,
        supplyCents: split?.supplyCents ?? null,
        vatCents: split?.vatCents ?? null,
        paymentMethod: totalCents === 0 ? "free" : card ? "card" : "bank_transfer",
        paymentMethodId: card?.id ?? null,
        receiptUrl: input.receiptUrl ?? null,
        subscriptionId: options.subscriptionId ?? null,
        paidAt: paid ? now : null,
      })
      .returning();
    const placed = order as typeof orders.$inferSelect;
    const [item] = await t
      .insert(orderItems)
      .values({
        orderId: placed.id,
        productId: product.id,
        productName: product.name,
        listUnitPriceCents,
        unitPriceCents,
        quantity: input.quantity,
        subtotalCents,
        discountTotalCents: input.discountCents,
        totalCents,
      })
      .returning();
    const granted =
      paid && grantType
        ? await t
            .insert(entitlements)
            .values({
              accountId: input.accountId,
              productId: product.id,
              orderId: placed.id,
              orderItemId: (item as typeof orderItems.$inferSelect).id,
              subscriptionId: options.subscriptionId ?? null,
              grantType,
              sourceQuantity: input.quantity,
              accessExpiresAt: options.accessExpiresAt ?? null,
              grantedAt: now,
            })
            .returning({ id: entitlements.id })
        : [];
    const [invoice] = await t
      .insert(invoices)
      .values({
        accountId: input.accountId,
        number: await nextNumber(t, "INV"),
        status: paid ? "paid" : "open",
        currency,
        totalCents,
        supplyCents: split?.supplyCents ?? null,
        vatCents: split?.vatCents ?? null,
        orderId: placed.id,
        subscriptionId: options.subscriptionId ?? null,
        issuedAt: now,
        paidAt: paid ? now : null,
      })
      .returning({ id: invoices.id, number: invoices.number });
    return {
      id: placed.id,
      number: placed.number,
      account_id: placed.accountId,
      status: placed.status,
      currency,
      total_cents: totalCents,
      supply_cents: placed.supplyCents,
      vat_cents: placed.vatCents,
      item_id: (item as typeof orderItems.$inferSelect).id,
      entitlement_ids: granted.map((row) => row.id),
      invoice: invoice as { id: number; number: string },
    };
  };
  return db.transaction(work);
}

/**
 * `order:refund`: the order becomes refunded and every entitlement it granted is revoked, together; refunding twice
 * changes nothing more. Only a paid order can be refunded.
 */
export async function refundOrder(db: Database, orderId: number) {
  return db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
    if (!order) throw new DomainError("order_not_found");
    if (order.status !== "paid" && order.status !== "refunded") {
      throw new DomainError("conflict", `Order ${order.number} is ${order.status}: only a paid order can be refunded.`);
    }
    const [refunded] = await tx
      .update(orders)
      .set({ status: "refunded", refundedAt: sql`coalesce(${orders.refundedAt}, now())` })
      .where(eq(orders.id, orderId))
      .returning();
    const revoked = await tx
      .update(entitlements)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(entitlements.orderId, orderId), isNull(entitlements.revokedAt)))
      .returning({ id: entitlements.id });
    const row = refunded as typeof orders.$inferSelect;
    return {
      id: row.id,
      number: row.number,
      status: row.status,
      refunded_at: (row.refundedAt as Date).toISOString(),
      revoked_entitlement_ids: revoked.map((entitlement) => entitlement.id),
    };
  });
}

export const CreateInvoiceInput = z.object({
  accountId: z.number().int().positive(),
  totalCents: z.number().int().min(0),
  currency: Currency,
  status: z.enum(invoiceStatuses).default("open"),
  orderId: z.number().int().positive().optional(),
  subscriptionId: z.number().int().positive().optional(),
  dueAt: z.date().optional(),
});
export type CreateInvoiceInput = z.input<typeof CreateInvoiceInput>;

/** `invoice:create`: an invoice of the account, for one of its orders or subscriptions, or on its own. */
export async function createInvoice(db: Database, rawInput: CreateInvoiceInput) {
  const input = parseInput(CreateInvoiceInput, rawInput);
  return db.transaction(async (tx) => {
    await requireAccount(tx, input.accountId);
    if (input.orderId) {
      const [order] = await tx
        .select({ id: orders.id })
        .from(orders)
        .where(and(eq(orders.id, input.orderId), eq(orders.accountId, input.accountId)));
      if (!order) throw new DomainError("order_not_found", "That order is not this account's.");
    }
    if (input.subscriptionId) {
      const [subscription] = await tx
        .select({ id: schema.subscriptions.id })
        .from(schema.subscriptions)
        .where(
          and(eq(schema.subscriptions.id, input.subscriptionId), eq(schema.subscriptions.accountId, input.accountId)),
        );
      if (!subscription) throw new DomainError("not_found", "That subscription is not this account's.");
    }
    const split = vatSplit(input.currency, input.totalCents);
    const [invoice] = await tx
      .insert(invoices)
      .values({
        accountId: input.accountId,
        number: await nextNumber(tx, "INV"),
        status: input.status,
        currency: input.currency,
        totalCents: input.totalCents,
        supplyCents: split?.supplyCents ?? null,
        vatCents: split?.vatCents ?? null,
        orderId: input.orderId ?? null,
        subscriptionId: input.subscriptionId ?? null,
        dueAt: input.dueAt ?? null,
        paidAt: input.status === "paid" ? sql`now()` : null,
      })
      .returning();
    const row = invoice as typeof invoices.$inferSelect;
    return {
      id: row.id,
      number: row.number,
      account_id: row.accountId,
      status: row.status,
      currency: row.currency,
      total_cents: row.totalCents,
      supply_cents: row.supplyCents,
      vat_cents: row.vatCents,
    };
  });
}

export const AddPaymentMethodInput = z.object({
  accountId: z.number().int().positive(),
  brand: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z][a-z0-9_-]{1,19}$/, "a card brand such as visa, mastercard or amex")
    .refine((brand) => !hasControlCharacter(brand)),
  /** The last four digits: nothing more of a card number is ever taken. */
  last4: z.string().regex(/^[0-9]{4}$/, "exactly the last four digits"),
  expMonth: z.number().int().min(1).max(12),
  expYear: z.number().int().min(2000).max(2200),
  isDefault: z.boolean().default(false),
});
export type AddPaymentMethodInput = z.input<typeof AddPaymentMethodInput>;

/** `payment-method:add`: a card on file; the first one, or one added with `isDefault`, becomes the default. */
export async function addPaymentMethod(db: Database, rawInput: AddPaymentMethodInput) {
  const input = parseInput(AddPaymentMethodInput, rawInput);
  return db.transaction(async (tx) => {
    await requireAccount(tx, input.accountId);
    await tx.execute(sql`select id from accounts where id = ${input.accountId} for update`);
    const [existing] = await tx
      .select({ id: paymentMethods.id })
      .from(paymentMethods)
      .where(eq(paymentMethods.accountId, input.accountId))
      .limit(1);
    const isDefault = input.isDefault || !existing;
    const [card] = await tx
      .insert(paymentMethods)
      .values({
        accountId: input.accountId,
        brand: input.brand,
        last4: input.last4,
        expMonth: input.expMonth,
        expYear: input.expYear,
        isDefault,
      })
      .returning();
    const row = card as typeof paymentMethods.$inferSelect;
    if (isDefault) {
      await tx
        .update(paymentMethods)
        .set({ isDefault: false })
        .where(and(eq(paymentMethods.accountId, input.accountId), ne(paymentMethods.id, row.id)));
    }
    return {
      id: row.id,
      account_id: row.accountId,
      brand: row.brand,
      last4: row.last4,
      exp_month: row.expMonth,
      exp_year: row.expYear,
      is_default: row.isDefault,
    };
  });
}
