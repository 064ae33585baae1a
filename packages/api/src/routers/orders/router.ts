import { z } from "zod";
import { addPaymentMethod, createInvoice, createOrder } from "../../commerce/order-admin";
import { commerceView, getOrder, listOrders } from "../../commerce/orders";
import { accountProcedure, sessionProcedure } from "../../procedures";
import { IdParam } from "../../schemas/common";
import { router } from "../../trpc";
import { makeDefaultCard, removeCard } from "./cards";
import { exampleInvoice, exampleOrderQuantity } from "./examples";
import { InvoiceDocumentData, invoiceDocument, orderInvoiceId } from "./invoice-document";
import { INVOICE_PAGE, InvoicesData, InvoicesInput, OrderShowData, OrdersData, PaymentMethodsData } from "./schemas";
import { listInvoices, listPaymentMethods } from "./service";

const tags = ["orders"];

export const ordersRouter = router({
  list: accountProcedure
    .meta({
      ability: "orders.read",
      openapi: {
        method: "GET",
        path: "/api/orders",
        tags,
        summary: "The account's orders",
        description:
          "Newest first, each with its items and the entitlements each granted. Money is in the currency's minor unit (`*_cents`: cents, or won for KRW, which has none); a KRW total includes 10 % VAT, split into `supply_cents` and `vat_cents`. `can_withdraw`: paid within 7 days, not used yet (no device seated on, or install recorded of, its products since) and not withdrawn from already; `withdrawal_requested_at`: when the buyer asked to withdraw (the billing page's withdrawal, once). Labels in Korean or English, by `Accept-Language`. A product key sees the orders of its product.",
      },
      example: {
        listed: async ({ db, accountId, productId }) => [
          { list: "orders", row: { id: (await createOrder(db, { accountId, productId })).id } },
        ],
      },
    })
    .input(z.object({}))
    .output(OrdersData)
    .query(({ ctx }) => listOrders(ctx.db, ctx.caller, commerceView(ctx))),

  show: accountProcedure
    .meta({
      ability: "orders.read",
      openapi: {
        method: "GET",
        path: "/api/orders/{order}",
        tags,
        summary: "One order",
        description: "Another account's order answers 404 `order_not_found`, exactly as a missing one does.",
      },
      errors: ["order_not_found"],
      example: {
        build: async ({ db, accountId, productId }) => ({
          params: { order: (await createOrder(db, { accountId, productId })).id },
        }),
      },
    })
    .input(z.object({ order: IdParam }))
    .output(OrderShowData)
    .query(({ ctx, input }) => getOrder(ctx.db, ctx.caller, commerceView(ctx), input.order)),

  invoices: accountProcedure
    .meta({
      ability: "orders.read",
      openapi: {
        method: "GET",
        path: "/api/invoices",
        tags,
        summary: "The account's invoices, a page at a time",
        description: `Newest first. \`status\` filters (draft, open, paid, void, uncollectible); \`limit\` is ${INVOICE_PAGE.default} by default and at most ${INVOICE_PAGE.max}; \`after\` is the \`next_cursor\` of the page before (the id of its last invoice), and pages never skip or repeat an invoice while new ones are added. \`next_cursor\` is null on the last page.`,
      },
      example: {
        listed: async ({ db, accountId }) => [
          {
            list: "invoices",
            row: { id: (await createInvoice(db, { accountId, totalCents: 1200, currency: "USD" })).id },
          },
        ],
      },
    })
    .input(InvoicesInput)
    .output(InvoicesData)
    .query(({ ctx, input }) => listInvoices(ctx.db, ctx.caller, commerceView(ctx), input)),

  paymentMethods: accountProcedure
    .meta({
      ability: "orders.read",
      openapi: {
        method: "GET",
        path: "/api/payment-methods",
        tags,
        summary: "Cards on file",
        description:
          "Brand, last four digits and expiry: nothing more of a card number is ever stored. A product key sees none (they are the account's, not a product's).",
      },
      example: {
        listed: async ({ db, accountId }) => {
          const card = await addPaymentMethod(db, {
            accountId,
            brand: "visa",
            last4: "4242",
            expMonth: 12,
            expYear: 2040,
          });
          return [{ list: "payment_methods", row: { id: card.id } }];
        },
      },
    })
    .input(z.object({}))
    .output(PaymentMethodsData)
    .query(({ ctx }) => listPaymentMethods(ctx.db, ctx.caller)),

  /** The billing page: make one of the person's own cards the default (renewals move to it). */
  makeDefaultCard: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(z.object({ id: z.number().int().positive() }))
    .output(z.object({ id: z.number().int() }))
    .mutation(({ ctx, input }) => makeDefaultCard(ctx.db, ctx.caller.accountId, input.id)),

  /** The invoice's printable page and PDF: the invoice with its lines and buyer (another account's is not found). */
  invoiceDocument: sessionProcedure
    .meta({
      ability: "signed-in",
      example: {
        listed: async (context) => [{ list: "lines", row: { quantity: await exampleOrderQuantity(context) } }],
        build: async (context) => ({ body: { invoice: await exampleInvoice(context) } }),
      },
    })
    .input(z.object({ invoice: z.number().int().positive() }))
    .output(InvoiceDocumentData)
    .query(({ ctx, input }) => invoiceDocument(ctx.db, ctx.caller, commerceView(ctx), input.invoice)),

  /** An order's printable page is its invoice's: which invoice that is. */
  orderInvoice: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(z.object({ order: z.number().int().positive() }))
    .output(z.object({ invoice_id: z.number().int() }))
    .query(({ ctx, input }) => orderInvoiceId(ctx.db, ctx.caller, input.order)),

  /** The billing page: remove one of the person's own cards (another becomes the default). */
  removeCard: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(z.object({ id: z.number().int().positive() }))
    .output(z.object({ removed: z.number().int(), default_card: z.number().int().nullable() }))
    .mutation(({ ctx, input }) => removeCard(ctx.db, ctx.caller.accountId, input.id)),
});
