import { readFileSync } from "node:fs";
import { brotliDecompressSync } from "node:zlib";
import PDFDocument from "pdfkit";
import { type AnswerLanguage, moneyIn } from "../../language";
import type { PublicDisclosureData } from "../../schemas/disclosure";
import type { InvoiceDocumentData } from "./invoice-document";

const fonts = new Map<string, Buffer>();

/** The TrueType font at `path` (Brotli-compressed), decompressed once per process. */
function fontAt(path: string): Buffer {
  let font = fonts.get(path);
  if (!font) {
    font = brotliDecompressSync(readFileSync(path));
    fonts.set(path, font);
  }
  return font;
}

const WORDS = {
  en: {
    title: "Invoice",
    number: "Number",
    status: "Status",
    issued: "Issued",
    paid: "Paid",
    order: "Order",
    payment: "Paid by",
    seller: "Seller",
    buyer: "Buyer",
    representative: "Representative",
    registration: "Business registration no.",
    mailOrder: "Mail-order business no.",
    item: "Item",
    quantity: "Qty",
    unitPrice: "Unit price",
    amount: "Amount",
    discount: "Discount",
    supply: "Supply value",
    vat: "VAT (10 %)",
    total: "Total",
    vatNote: "The total includes 10 % VAT.",
    methods: { card: "Card", bank_transfer: "Bank transfer", free: "Free" } as Record<string, string>,
  },
  ko: {
    title: "청구서",
    number: "번호",
    status: "상태",
    issued: "발행일",
    paid: "결제일",
    order: "주문",
    payment: "결제 수단",
    seller: "판매자",
    buyer: "구매자",
    representative: "대표자",
    registration: "사업자등록번호",
    mailOrder: "통신판매업 신고번호",
    item: "품목",
    quantity: "수량",
    unitPrice: "단가",
    amount: "금액",
    discount: "할인",
    supply: "공급가액",
    vat: "부가세 (10%)",
    total: "합계",
    vatNote: "합계에는 부가세 10%가 포함되어 있습니다.",
    methods: { card: "카드", bank_transfer: "계좌 이체", free: "무료" } as Record<string, string>,
  },
} as const;

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN;

/** A date as the language writes it, in UTC (the pages' time zone). */
function day(iso: string | null, language: AnswerLanguage): string {
  if (!iso) return "—";
  return new Intl.DateTimeFormat(language === "ko" ? "ko-KR" : "en-US", { dateStyle: "long", timeZone: "UTC" }).format(
    new Date(iso),
  );
}

/**
 * An invoice as an A4 PDF in the reader's language: the seller's disclosure and the buyer, the invoice's facts, one row
 * per item, then discount, supply value and VAT (KRW) and the total, each amount in the invoice's currency.
 */
export function invoicePdf(
  document: InvoiceDocumentData,
  seller: PublicDisclosureData["en"] | null,
  language: AnswerLanguage,
  /** `INVOICE_FONT_PATH` (`@shelf/api/invoice-font`), as the server's own process resolves it. */
  fontPath: string,
): Promise<Buffer> {
  const words = WORDS[language];
  const { invoice } = document;
  const money = (cents: number) => moneyIn(language, cents, invoice.currency);
  const pdf = new PDFDocument({ size: "A4", margin: MARGIN, info: { Title: `${words.title} ${invoice.number}` } });
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  pdf.registerFont("text", fontAt(fontPath));
  pdf.font("text").fontSize(22).text(`${words.title} ${invoice.number}`);
  pdf.moveDown(0.5).fontSize(10);
  const facts: [string, string][] = [
    [words.status, invoice.status_label],
    [words.issued, day(invoice.issued_at, language)],
    ...(invoice.paid_at ? [[words.paid, day(invoice.paid_at, language)] as [string, string]] : []),
    ...(invoice.order_number ? [[words.order, invoice.order_number] as [string, string]] : []),
    ...(document.payment_method
      ? [[words.payment, words.methods[document.payment_method] ?? document.payment_method] as [string, string]]
      : []),
  ];
  for (const [name, value] of facts) pdf.text(`${name}: ${value}`);

  const partiesTop = pdf.moveDown(1).y;
  const column = WIDTH / 2 - 10;
  pdf.fontSize(12).text(words.seller, MARGIN, partiesTop, { width: column });
  pdf.fontSize(9);
  if (seller) {
    for (const line of [
      seller.company_name,
      `${words.representative}: ${seller.representative_name}`,
      `${words.registration}: ${seller.business_registration_number}`,
      `${words.mailOrder}: ${seller.mail_order_registration_number}`,
      seller.address,
      `${seller.phone} · ${seller.email}`,
    ]) {
      pdf.text(line, { width: column });
    }
  }
  const sellerBottom = pdf.y;
  pdf.fontSize(12).text(words.buyer, MARGIN + WIDTH / 2, partiesTop, { width: column });
  pdf.fontSize(9);
  if (document.buyer.name) pdf.text(document.buyer.name, { width: column });
  pdf.text(document.buyer.email, { width: column });
  pdf.y = Math.max(sellerBottom, pdf.y) + 20;

  const columns = [
    { at: MARGIN, width: WIDTH * 0.46, align: "left" as const },
    { at: MARGIN + WIDTH * 0.46, width: WIDTH * 0.1, align: "right" as const },
    { at: MARGIN + WIDTH * 0.56, width: WIDTH * 0.22, align: "right" as const },
    { at: MARGIN + WIDTH * 0.78, width: WIDTH * 0.22, align: "right" as const },
  ];
  const row = (cells: string[], size = 10) => {
    const top = pdf.y;
    let bottom = top;
    pdf.fontSize(size);
    cells.forEach((cell, index) => {
      const { at, width, align } = columns[index] as (typeof columns)[number];
      pdf.text(cell, at, top, { width, align });
      bottom = Math.max(bottom, pdf.y);
    });
    pdf.y = bottom + 4;
  };
  const rule = () => {
    pdf
      .moveTo(MARGIN, pdf.y)
      .lineTo(MARGIN + WIDTH, pdf.y)
      .lineWidth(0.5)
      .stroke();
    pdf.y += 6;
  };
  row([words.item, words.quantity, words.unitPrice, words.amount], 9);
  rule();
  for (const line of document.lines) {
    row([line.name, String(line.quantity), money(line.unit_price_cents), money(line.amount_cents)]);
  }
  rule();
  const discount = document.lines.reduce((sum, line) => sum + line.discount_cents, 0);
  const totals: [string, string][] = [
    ...(discount > 0 ? [[words.discount, money(-discount)] as [string, string]] : []),
    ...(invoice.supply_cents !== null && invoice.vat_cents !== null
      ? [
          [words.supply, money(invoice.supply_cents)] as [string, string],
          [words.vat, money(invoice.vat_cents)] as [string, string],
        ]
      : []),
  ];
  for (const [name, value] of totals) row([name, "", "", value]);
  row([words.total, "", "", money(invoice.total_cents)], 12);
  if (invoice.vat_cents !== null) pdf.fontSize(8).text(words.vatNote, MARGIN, pdf.y + 8, { width: WIDTH });
  pdf.end();
  return done;
}
