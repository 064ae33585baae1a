import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrder } from "../../commerce/order-admin";
import { createAccount, createProduct } from "../../testing/factories";
import { signedInCaller } from "../../testing/harness";
import { DEMO_DISCLOSURE } from "../public/disclosure";
import { INVOICE_FONT_PATH } from "./invoice-font";
import { invoicePdf } from "./invoice-pdf";

let testDb: TestDatabase;
let dir: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-invoice-"));
});
afterAll(async () => {
  await testDb?.drop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** The text of a PDF as Debian's poppler reads it (pdftotext), in reading order. */
async function pdfText(pdf: Buffer): Promise<string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  await fs.writeFile(file, pdf);
  const { stdout } = await promisify(execFile)("pdftotext", ["-layout", file, "-"]);
  return stdout;
}

/** Two of a ₩33,000 product, ₩6,000 off, bought by 김민지: ₩60,000, of which ₩54,545 supply and ₩5,455 VAT. */
async function krwOrder() {
  const account = await createAccount(testDb.db, { name: "김민지" });
  const product = await createProduct(testDb.db, { name: "프롬프트 창고", unitPriceCents: 33_000, currency: "KRW" });
  const order = await createOrder(testDb.db, {
    accountId: account.id,
    productId: product.id,
    quantity: 2,
    discountCents: 6_000,
  });
  return { account, order };
}

async function invoiceOf(orderId: number) {
  const [row] = await testDb.db.select().from(schema.invoices).where(eq(schema.invoices.orderId, orderId));
  return row as typeof schema.invoices.$inferSelect;
}

describe("invoice documents", () => {
  it("gives the buyer's own invoice with its lines, supply value and VAT; another account's is not found", async () => {
    const { account, order } = await krwOrder();
    const invoice = await invoiceOf(order.id);
    const { caller } = await signedInCaller(testDb.db, account.id);
    const document = await caller.orders.invoiceDocument({ invoice: invoice.id });
    expect(document.invoice).toMatchObject({
      number: invoice.number,
      currency: "KRW",
      total_cents: 60_000,
      supply_cents: 54_545,
      vat_cents: 5_455,
      order_number: order.number,
    });
    expect(document.buyer).toEqual({ name: "김민지", email: account.email });
    expect(document.lines).toEqual([
      { name: "프롬프트 창고", quantity: 2, unit_price_cents: 33_000, amount_cents: 66_000, discount_cents: 6_000 },
    ]);
    const stranger = await signedInCaller(testDb.db, (await createAccount(testDb.db)).id);
    await expect(stranger.caller.orders.invoiceDocument({ invoice: invoice.id })).rejects.toMatchObject({
      cause: { code: "not_found" },
    });
  });

  it("writes a PDF whose text has the seller, the buyer, each amount in the currency, in Korean and in English", async () => {
    const { account, order } = await krwOrder();
    const { caller } = await signedInCaller(testDb.db, account.id);
    const document = await caller.orders.invoiceDocument({ invoice: (await invoiceOf(order.id)).id });
    const pdf = await invoicePdf(document, DEMO_DISCLOSURE.ko, "ko", INVOICE_FONT_PATH);
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    // The font is cut to what a document uses: a few kilobytes, not the 0.9 MB it is made from.
    expect(pdf.length).toBeLessThan(100_000);
    const korean = await pdfText(pdf);
    expect(korean).toContain(`청구서 ${document.invoice.number}`);
    expect(korean).toContain("셸프 데모 (예시)");
    expect(korean).toContain("사업자등록번호: 000-00-00000 (예시)");
    expect(korean).toContain("김민지");
    // A line is its quantity at the unit price; the discount below it takes the lines to the total.
    expect(korean).toMatch(/프롬프트 창고\s+2\s+₩33,000\s+₩66,000/);
    expect(korean).toMatch(/할인\s+-₩6,000/);
    expect(korean).toMatch(/공급가액\s+₩54,545/);
    expect(korean).toMatch(/부가세 \(10%\)\s+₩5,455/);
    expect(korean).toMatch(/합계\s+₩60,000/);

    const english = await pdfText(await invoicePdf(document, DEMO_DISCLOSURE.en, "en", INVOICE_FONT_PATH));
    expect(english).toContain(`Invoice ${document.invoice.number}`);
    expect(english).toContain("Shelf Demo (sample)");
    expect(english).toMatch(/Supply value\s+₩54,545/);
    expect(english).toMatch(/VAT \(10 %\)\s+₩5,455/);
    expect(english).toMatch(/Total\s+₩60,000/);

    // In dollars: cents written as dollars, and no VAT lines.
    const usd = await createProduct(testDb.db, { name: "Lumen Notes", unitPriceCents: 1_250, currency: "USD" });
    const dollars = await createOrder(testDb.db, { accountId: account.id, productId: usd.id });
    const usdDocument = await caller.orders.invoiceDocument({ invoice: (await invoiceOf(dollars.id)).id });
    const usdText = await pdfText(await invoicePdf(usdDocument, DEMO_DISCLOSURE.en, "en", INVOICE_FONT_PATH));
    expect(usdText).toMatch(/Lumen Notes\s+1\s+\$12\.50\s+\$12\.50/);
    expect(usdText).toMatch(/Total\s+\$12\.50/);
    expect(usdText).not.toContain("VAT");
  });
});
